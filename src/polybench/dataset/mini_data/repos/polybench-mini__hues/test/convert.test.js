'use strict';

const assert = require('node:assert/strict');
const { clamp, round, rgbToHsl, hslToRgb, rgbToHex, hexToRgb } = require('../lib/convert');

describe('convert', () => {
  describe('rgbToHsl', () => {
    it('converts primary colours', () => {
      assert.deepEqual(rgbToHsl(255, 0, 0), { h: 0, s: 100, l: 50 });
      assert.deepEqual(rgbToHsl(0, 255, 0), { h: 120, s: 100, l: 50 });
      assert.deepEqual(rgbToHsl(0, 0, 255), { h: 240, s: 100, l: 50 });
    });

    it('gives greys no hue and no saturation', () => {
      assert.deepEqual(rgbToHsl(128, 128, 128), { h: 0, s: 0, l: (128 / 255) * 100 });
    });

    it('keeps the hue positive', () => {
      const { h } = rgbToHsl(255, 0, 128);
      assert.ok(h > 300 && h < 360, `hue ${h}`);
    });
  });

  describe('hslToRgb', () => {
    it('inverts rgbToHsl', () => {
      for (const [r, g, b] of [[12, 34, 56], [200, 100, 50], [255, 255, 255], [0, 0, 0], [102, 51, 153]]) {
        const { h, s, l } = rgbToHsl(r, g, b);
        assert.deepEqual(hslToRgb(h, s, l), { r, g, b });
      }
    });

    it('wraps the hue and clamps percentages', () => {
      assert.deepEqual(hslToRgb(480, 100, 50), hslToRgb(120, 100, 50));
      assert.deepEqual(hslToRgb(-120, 100, 50), hslToRgb(240, 100, 50));
      assert.deepEqual(hslToRgb(0, 150, 120), { r: 255, g: 255, b: 255 });
    });
  });

  describe('hex', () => {
    it('reads short and long forms', () => {
      assert.deepEqual(hexToRgb('#f80'), { r: 255, g: 136, b: 0, alpha: 1 });
      assert.deepEqual(hexToRgb('FF8800'), { r: 255, g: 136, b: 0, alpha: 1 });
      assert.deepEqual(hexToRgb('#ff880080'), { r: 255, g: 136, b: 0, alpha: 0.502 });
      assert.deepEqual(hexToRgb('#f808'), { r: 255, g: 136, b: 0, alpha: 0.533 });
    });

    it('rejects malformed input', () => {
      for (const text of ['#ggg', '#12345', '', 'red', '#1234567']) assert.equal(hexToRgb(text), null, text);
    });

    it('writes lowercase hex with alpha only when translucent', () => {
      assert.equal(rgbToHex(255, 136, 0), '#ff8800');
      assert.equal(rgbToHex(255, 136, 0, 1), '#ff8800');
      assert.equal(rgbToHex(255, 136, 0, 0.5), '#ff880080');
      assert.equal(rgbToHex(300, -4, 12.6), '#ff000d');
    });
  });

  describe('numbers', () => {
    it('clamps and rounds', () => {
      assert.equal(clamp(5, 0, 3), 3);
      assert.equal(clamp(-5, 0, 3), 0);
      assert.equal(round(1.23456, 2), 1.23);
      assert.ok(Object.is(round(-0.0001), 0));
    });
  });
});
