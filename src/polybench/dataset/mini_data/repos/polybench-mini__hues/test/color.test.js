'use strict';

const assert = require('node:assert/strict');
const { Color } = require('../lib/color');

describe('Color', () => {
  describe('construction', () => {
    it('clamps channels and alpha', () => {
      const color = new Color(300, -1, 12.5, 2);
      assert.deepEqual([color.r, color.g, color.b, color.alpha], [255, 0, 12.5, 1]);
    });

    it('rejects non-numeric channels', () => {
      assert.throws(() => new Color('12', 0, 0), TypeError);
      assert.throws(() => new Color(0, 0, 0, NaN), /alpha must be a number/);
    });

    it('is immutable', () => {
      const color = new Color(1, 2, 3);
      assert.ok(Object.isFrozen(color));
      assert.notEqual(color.lighten(10), color);
    });
  });

  describe('output', () => {
    it('formats hex, rgb and hsl', () => {
      const color = Color.fromHex('#663399');
      assert.equal(color.toHex(), '#663399');
      assert.equal(color.toRgbString(), 'rgb(102, 51, 153)');
      assert.equal(color.toHslString(), 'hsl(270, 50%, 40%)');
      assert.equal(String(color), '#663399');
      assert.equal(JSON.stringify({ color }), '{"color":"#663399"}');
    });

    it('includes alpha when translucent', () => {
      const color = new Color(255, 0, 0, 0.25);
      assert.equal(color.toHex(), '#ff000040');
      assert.equal(color.toRgbString(), 'rgba(255, 0, 0, 0.25)');
      assert.equal(color.toHslString(), 'hsla(0, 100%, 50%, 0.25)');
    });
  });

  describe('named colours', () => {
    it('looks names up case-insensitively', () => {
      assert.equal(Color.named('RebeccaPurple').toHex(), '#663399');
      assert.equal(Color.named(' white ').toHex(), '#ffffff');
      assert.equal(Color.named('notacolour'), null);
    });

    it('finds the name of a colour', () => {
      assert.equal(Color.fromHex('#ff0000').toName(), 'red');
      assert.equal(Color.fromHex('#00ffff').toName(), 'aqua');
      assert.equal(Color.fromHex('#123456').toName(), null);
      assert.equal(new Color(255, 0, 0, 0.5).toName(), null);
    });

    it('knows all CSS Color 4 names', () => {
      assert.equal(Object.keys(Color.NAMED).length, 148);
      assert.ok(Object.isFrozen(Color.NAMED));
    });
  });

  describe('manipulation', () => {
    it('lightens and darkens in HSL', () => {
      const navy = Color.fromHex('#000080');
      assert.equal(navy.lighten(20).toHex(), '#0000e6');
      assert.equal(navy.lighten(20).darken(20).toHex(), '#000080');
      assert.equal(Color.fromHex('#fff').lighten(10).toHex(), '#ffffff');
    });

    it('saturates and rotates', () => {
      assert.equal(Color.fromHex('#bf4040').saturate(-100).toHex(), '#808080');
      assert.equal(Color.fromHex('#ff0000').rotate(120).toHex(), '#00ff00');
      assert.equal(Color.fromHex('#ff0000').rotate(-120).toHex(), '#0000ff');
    });

    it('mixes, inverts and greys', () => {
      const black = Color.fromHex('#000');
      const white = Color.fromHex('#fff');
      assert.equal(black.mix(white).toHex(), '#808080');
      assert.equal(black.mix(white, 0.25).toHex(), '#404040');
      assert.equal(Color.fromHex('#ff8800').invert().toHex(), '#0077ff');
      assert.equal(Color.fromHex('#ff0000').grayscale().toHex(), '#363636');
    });

    it('compares by rounded value', () => {
      assert.ok(new Color(10.2, 20, 30).equals(new Color(10, 20, 30)));
      assert.ok(!new Color(10, 20, 30).equals(new Color(10, 20, 30, 0.5)));
      assert.ok(!new Color(10, 20, 30).equals('#0a141e'));
    });
  });

  describe('luminance', () => {
    it('spans 0 to 1', () => {
      assert.equal(Color.fromHex('#000').luminance(), 0);
      assert.equal(Color.fromHex('#fff').luminance(), 1);
    });

    it('tells dark from light', () => {
      assert.ok(Color.fromHex('#123').isDark());
      assert.ok(!Color.fromHex('#ffd700').isDark());
    });
  });
});
