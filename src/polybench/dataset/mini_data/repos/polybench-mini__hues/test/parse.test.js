'use strict';

const assert = require('node:assert/strict');
const { parseColor, tryParseColor } = require('../lib/parse');
const { Color } = require('../lib/color');

const hex = (input) => parseColor(input).toHex();

describe('parseColor', () => {
  it('reads hex colours', () => {
    assert.equal(hex('#F80'), '#ff8800');
    assert.equal(hex('  #ff880080 '), '#ff880080');
  });

  it('reads named colours and transparent', () => {
    assert.equal(hex('CornflowerBlue'), '#6495ed');
    assert.equal(hex('rebeccapurple'), '#663399');
    assert.equal(parseColor('transparent').alpha, 0);
  });

  it('reads legacy rgb() and rgba()', () => {
    assert.equal(hex('rgb(255, 136, 0)'), '#ff8800');
    assert.equal(hex('rgba(255,136,0,0.5)'), '#ff880080');
    assert.equal(hex('rgb(100%, 50%, 0%)'), '#ff8000');
  });

  it('reads modern space-separated syntax', () => {
    assert.equal(hex('rgb(255 136 0 / 50%)'), '#ff880080');
    assert.equal(hex('hsl(120 100% 25%)'), '#008000');
    assert.equal(hex('hsl(0.5turn 100% 50% / 0.5)'), '#00ffff80');
  });

  it('reads hsl() and hsla()', () => {
    assert.equal(hex('hsl(270, 50%, 40%)'), '#663399');
    assert.equal(hex('hsla(270deg, 50%, 40%, 0.5)'), '#66339980');
  });

  it('passes Color instances through', () => {
    const color = new Color(1, 2, 3);
    assert.equal(parseColor(color), color);
  });

  it('rejects anything else', () => {
    for (const input of ['', 'blurple', 'rgb(1, 2)', 'hsl(10, 20, 30)', '#12', 'rgb(1 2 3 4 5)']) {
      assert.throws(() => parseColor(input), SyntaxError, input);
    }
  });

  it('returns null from tryParseColor on bad input', () => {
    assert.equal(tryParseColor('nope'), null);
    assert.equal(tryParseColor('red').toHex(), '#ff0000');
  });
});
