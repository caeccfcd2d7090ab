'use strict';

const { clamp, round, rgbToHsl, hslToRgb, rgbToHex, hexToRgb } = require('./convert');

function checkChannel(name, value) {
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new TypeError(`${name} must be a number, got ${JSON.stringify(value)}`);
  }
  return clamp(value, 0, 255);
}

/**
 * An immutable sRGB colour with an alpha channel.
 *
 * Channels are kept as given (clamped to 0-255, not rounded) so that chained
 * operations do not accumulate rounding errors; output methods round.
 */
class Color {
  /** The CSS named colours (CSS Color Module Level 4) as `rrggbb` hex digits. */
  static NAMED = Object.freeze({
    aliceblue: 'f0f8ff',
    antiquewhite: 'faebd7',
    aqua: '00ffff',
    aquamarine: '7fffd4',
    azure: 'f0ffff',
    beige: 'f5f5dc',
    bisque: 'ffe4c4',
    black: '000000',
    blanchedalmond: 'ffebcd',
    blue: '0000ff',
    blueviolet: '8a2be2',
    brown: 'a52a2a',
    burlywood: 'deb887',
    cadetblue: '5f9ea0',
    chartreuse: '7fff00',
    chocolate: 'd2691e',
    coral: 'ff7f50',
    cornflowerblue: '6495ed',
    cornsilk: 'fff8dc',
    crimson: 'dc143c',
    cyan: '00ffff',
    darkblue: '00008b',
    darkcyan: '008b8b',
    darkgoldenrod: 'b8860b',
    darkgray: 'a9a9a9',
    darkgreen: '006400',
    darkgrey: 'a9a9a9',
    darkkhaki: 'bdb76b',
    darkmagenta: '8b008b',
    darkolivegreen: '556b2f',
    darkorange: 'ff8c00',
    darkorchid: '9932cc',
    darkred: '8b0000',
    darksalmon: 'e9967a',
    darkseagreen: '8fbc8f',
    darkslateblue: '483d8b',
    darkslategray: '2f4f4f',
    darkslategrey: '2f4f4f',
    darkturquoise: '00ced1',
    darkviolet: '9400d3',
    deeppink: 'ff1493',
    deepskyblue: '00bfff',
    dimgray: '696969',
    dimgrey: '696969',
    dodgerblue: '1e90ff',
    firebrick: 'b22222',
    floralwhite: 'fffaf0',
    forestgreen: '228b22',
    fuchsia: 'ff00ff',
    gainsboro: 'dcdcdc',
    ghostwhite: 'f8f8ff',
    gold: 'ffd700',
    goldenrod: 'daa520',
    gray: '808080',
    green: '008000',
    greenyellow: 'adff2f',
    grey: '808080',
    honeydew: 'f0fff0',
    hotpink: 'ff69b4',
    indianred: 'cd5c5c',
    indigo: '4b0082',
    ivory: 'fffff0',
    khaki: 'f0e68c',
    lavender: 'e6e6fa',
    lavenderblush: 'fff0f5',
    lawngreen: '7cfc00',
    lemonchiffon: 'fffacd',
    lightblue: 'add8e6',
    lightcoral: 'f08080',
    lightcyan: 'e0ffff',
    lightgoldenrodyellow: 'fafad2',
    lightgray: 'd3d3d3',
    lightgreen: '90ee90',
    lightgrey: 'd3d3d3',
    lightpink: 'ffb6c1',
    lightsalmon: 'ffa07a',
    lightseagreen: '20b2aa',
    lightskyblue: '87cefa',
    lightslategray: '778899',
    lightslategrey: '778899',
    lightsteelblue: 'b0c4de',
    lightyellow: 'ffffe0',
    lime: '00ff00',
    limegreen: '32cd32',
    linen: 'faf0e6',
    magenta: 'ff00ff',
    maroon: '800000',
    mediumaquamarine: '66cdaa',
    mediumblue: '0000cd',
    mediumorchid: 'ba55d3',
    mediumpurple: '9370db',
    mediumseagreen: '3cb371',
    mediumslateblue: '7b68ee',
    mediumspringgreen: '00fa9a',
    mediumturquoise: '48d1cc',
    mediumvioletred: 'c71585',
    midnightblue: '191970',
    mintcream: 'f5fffa',
    mistyrose: 'ffe4e1',
    moccasin: 'ffe4b5',
    navajowhite: 'ffdead',
    navy: '000080',
    oldlace: 'fdf5e6',
    olive: '808000',
    olivedrab: '6b8e23',
    orange: 'ffa500',
    orangered: 'ff4500',
    orchid: 'da70d6',
    palegoldenrod: 'eee8aa',
    palegreen: '98fb98',
    paleturquoise: 'afeeee',
    palevioletred: 'db7093',
    papayawhip: 'ffefd5',
    peachpuff: 'ffdab9',
    peru: 'cd853f',
    pink: 'ffc0cb',
    plum: 'dda0dd',
    powderblue: 'b0e0e6',
    purple: '800080',
    rebeccapurple: '663399',
    red: 'ff0000',
    rosybrown: 'bc8f8f',
    royalblue: '4169e1',
    saddlebrown: '8b4513',
    salmon: 'fa8072',
    sandybrown: 'f4a460',
    seagreen: '2e8b57',
    seashell: 'fff5ee',
    sienna: 'a0522d',
    silver: 'c0c0c0',
    skyblue: '87ceeb',
    slateblue: '6a5acd',
    slategray: '708090',
    slategrey: '708090',
    snow: 'fffafa',
    springgreen: '00ff7f',
    steelblue: '4682b4',
    tan: 'd2b48c',
    teal: '008080',
    thistle: 'd8bfd8',
    tomato: 'ff6347',
    turquoise: '40e0d0',
    violet: 'ee82ee',
    wheat: 'f5deb3',
    white: 'ffffff',
    whitesmoke: 'f5f5f5',
    yellow: 'ffff00',
    yellowgreen: '9acd32',
  });

  constructor(r, g, b, alpha = 1) {
    this.r = checkChannel('red', r);
    this.g = checkChannel('green', g);
    this.b = checkChannel('blue', b);
    if (typeof alpha !== 'number' || Number.isNaN(alpha)) {
      throw new TypeError(`alpha must be a number, got ${JSON.stringify(alpha)}`);
    }
    this.alpha = clamp(alpha, 0, 1);
    Object.freeze(this);
  }

  /** A colour from a hex string (`#rgb`, `#rgba`, `#rrggbb` or `#rrggbbaa`). */
  static fromHex(text) {
    const rgb = hexToRgb(text);
    if (!rgb) throw new SyntaxError(`not a hex colour: ${JSON.stringify(text)}`);
    return new Color(rgb.r, rgb.g, rgb.b, rgb.alpha);
  }

  /** A colour from hue (degrees), saturation and lightness (percent). */
  static fromHsl(h, s, l, alpha = 1) {
    const { r, g, b } = hslToRgb(h, s, l);
    return new Color(r, g, b, alpha);
  }

  /** The colour called `name` in CSS (case-insensitive), or `null`. */
  static named(name) {
    const key = String(name).trim().toLowerCase();
    if (!Object.prototype.hasOwnProperty.call(Color.NAMED, key)) return null;
    return Color.fromHex(Color.NAMED[key]);
  }

  /** `#rrggbb`, with an alpha byte appended when the colour is translucent. */
  toHex() {
    return rgbToHex(this.r, this.g, this.b, this.alpha);
  }

  /** `rgb(r, g, b)` or `rgba(r, g, b, a)`. */
  toRgbString() {
    const channels = [this.r, this.g, this.b].map((value) => round(value));
    if (this.alpha < 1) return `rgba(${channels.join(', ')}, ${round(this.alpha, 3)})`;
    return `rgb(${channels.join(', ')})`;
  }

  /** `{ h, s, l, alpha }` with hue in degrees and the rest in percent. */
  toHsl() {
    const { h, s, l } = rgbToHsl(this.r, this.g, this.b);
    return { h, s, l, alpha: this.alpha };
  }

  /** `hsl(h, s%, l%)` or `hsla(h, s%, l%, a)`. */
  toHslString() {
    const { h, s, l } = this.toHsl();
    const body = `${round(h)}, ${round(s)}%, ${round(l)}%`;
    return this.alpha < 1 ? `hsla(${body}, ${round(this.alpha, 3)})` : `hsl(${body})`;
  }

  /** The CSS name of this exact colour (the first one in alphabetical order), or `null`. */
  toName() {
    if (this.alpha < 1) return null;
    const hex = this.toHex().slice(1);
    const entry = Object.entries(Color.NAMED).find(([, value]) => value === hex);
    return entry ? entry[0] : null;
  }

  /** The same colour with another alpha. */
  withAlpha(alpha) {
    return new Color(this.r, this.g, this.b, alpha);
  }

  /** Raise the lightness by `amount` percentage points. */
  lighten(amount) {
    const { h, s, l } = this.toHsl();
    return Color.fromHsl(h, s, clamp(l + amount, 0, 100), this.alpha);
  }

  /** Lower the lightness by `amount` percentage points. */
  darken(amount) {
    return this.lighten(-amount);
  }

  /** Raise the saturation by `amount` percentage points (negative to lower it). */
  saturate(amount) {
    const { h, s, l } = this.toHsl();
    return Color.fromHsl(h, clamp(s + amount, 0, 100), l, this.alpha);
  }

  /** Turn the hue by `degrees`. */
  rotate(degrees) {
    const { h, s, l } = this.toHsl();
    return Color.fromHsl(h + degrees, s, l, this.alpha);
  }

  /** The grey of the same luminance weighting (ITU-R BT.709). */
  grayscale() {
    const grey = 0.2126 * this.r + 0.7152 * this.g + 0.0722 * this.b;
    return new Color(grey, grey, grey, this.alpha);
  }

  /** The complementary colour in RGB. */
  invert() {
    return new Color(255 - this.r, 255 - this.g, 255 - this.b, this.alpha);
  }

  /** Mix with `other`: `weight` is the share of `other`, from 0 to 1 (default 0.5). */
  mix(other, weight = 0.5) {
    const share = clamp(weight, 0, 1);
    const blend = (a, b) => a + (b - a) * share;
    return new Color(
      blend(this.r, other.r),
      blend(this.g, other.g),
      blend(this.b, other.b),
      blend(this.alpha, other.alpha),
    );
  }

  /** Relative luminance as defined by WCAG 2 (0 for black, 1 for white). */
  luminance() {
    const linear = (channel) => {
      const value = channel / 255;
      return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * linear(this.r) + 0.7152 * linear(this.g) + 0.0722 * linear(this.b);
  }

  /** True when white text contrasts more with this colour than black text does. */
  isDark() {
    return (1.05 / (this.luminance() + 0.05)) > ((this.luminance() + 0.05) / 0.05);
  }

  /** Same rounded channels and alpha. */
  equals(other) {
    return other instanceof Color && this.toRgbString() === other.toRgbString();
  }

  toString() {
    return this.toHex();
  }

  toJSON() {
    return this.toHex();
  }
}

module.exports = { Color };
