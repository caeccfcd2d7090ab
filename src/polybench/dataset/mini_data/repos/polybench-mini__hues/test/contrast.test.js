'use strict';

const assert = require('node:assert/strict');
const hues = require('../lib');

describe('contrast', () => {
  it('computes WCAG ratios', () => {
    assert.equal(hues.contrastRatio('#000', '#fff'), 21);
    assert.equal(hues.contrastRatio('#fff', '#fff'), 1);
    assert.equal(hues.contrastRatio('#777777', 'white').toFixed(2), '4.48');
  });

  it('is symmetric for opaque colours', () => {
    assert.equal(hues.contrastRatio('navy', 'gold'), hues.contrastRatio('gold', 'navy'));
  });

  it('composites translucent text over the background', () => {
    const ratio = hues.contrastRatio('rgba(0, 0, 0, 0.5)', '#ffffff');
    const grey = new hues.Color(127.5, 127.5, 127.5);
    assert.equal(ratio.toFixed(6), hues.contrastRatio(grey, '#ffffff').toFixed(6));
  });

  it('checks AA and AAA thresholds', () => {
    assert.ok(!hues.isReadable('#777777', '#ffffff'));
    assert.ok(hues.isReadable('#777777', '#ffffff', { size: 'large' }));
    assert.ok(hues.isReadable('#595959', '#ffffff', { level: 'AAA' }));
    assert.throws(() => hues.isReadable('#000', '#fff', { level: 'AAAA' }), RangeError);
  });

  it('picks the most readable candidate', () => {
    assert.equal(hues.mostReadable('#222222').toHex(), '#ffffff');
    assert.equal(hues.mostReadable('#eeeeee').toHex(), '#000000');
    assert.equal(hues.mostReadable('navy', ['#ff0000', 'yellow', '#00ffff']).toName(), 'yellow');
  });

  it('exposes a parsing shorthand', () => {
    assert.equal(hues('tomato').darken(10).toHex(), '#ff3814');
  });
});
