'use strict';

/** Limit `value` to the range [min, max]. */
function clamp(value, min, max) {
  return Math.min(max, Math.max(min, value));
}

/** Round to `digits` decimal places (default 0), avoiding -0. */
function round(value, digits = 0) {
  const factor = 10 ** digits;
  const result = Math.round(value * factor) / factor;
  return Object.is(result, -0) ? 0 : result;
}

/**
 * Convert RGB channels (0-255) to HSL: hue in degrees [0, 360), saturation and
 * lightness in percent [0, 100].
 */
function rgbToHsl(r, g, b) {
  const red = r / 255;
  const green = g / 255;
  const blue = b / 255;
  const max = Math.max(red, green, blue);
  const min = Math.min(red, green, blue);
  const lightness = (max + min) / 2;
  const delta = max - min;
  if (delta === 0) return { h: 0, s: 0, l: lightness * 100 };

  const saturation = delta / (1 - Math.abs(2 * lightness - 1));
  let hue;
  if (max === red) hue = ((green - blue) / delta) % 6;
  else if (max === green) hue = (blue - red) / delta + 2;
  else hue = (red - green) / delta + 4;
  hue *= 60;
  if (hue < 0) hue += 360;
  return { h: hue, s: saturation * 100, l: lightness * 100 };
}

/** Convert HSL (hue in degrees, saturation and lightness in percent) to RGB channels 0-255. */
function hslToRgb(h, s, l) {
  const hue = ((h % 360) + 360) % 360;
  const saturation = clamp(s, 0, 100) / 100;
  const lightness = clamp(l, 0, 100) / 100;
  const chroma = (1 - Math.abs(2 * lightness - 1)) * saturation;
  const x = chroma * (1 - Math.abs(((hue / 60) % 2) - 1));
  const m = lightness - chroma / 2;
  let channels;
  if (hue < 60) channels = [chroma, x, 0];
  else if (hue < 120) channels = [x, chroma, 0];
  else if (hue < 180) channels = [0, chroma, x];
  else if (hue < 240) channels = [0, x, chroma];
  else if (hue < 300) channels = [x, 0, chroma];
  else channels = [chroma, 0, x];
  const [r, g, b] = channels.map((channel) => round((channel + m) * 255));
  return { r, g, b };
}

/** Two lowercase hex digits for a channel 0-255. */
function channelToHex(value) {
  return round(clamp(value, 0, 255)).toString(16).padStart(2, '0');
}

/** `#rrggbb`, or `#rrggbbaa` when `alpha` is given and below 1. */
function rgbToHex(r, g, b, alpha) {
  let hex = `#${channelToHex(r)}${channelToHex(g)}${channelToHex(b)}`;
  if (alpha !== undefined && alpha < 1) hex += channelToHex(alpha * 255);
  return hex;
}

/**
 * Read a hex colour (`#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`, the `#` optional).
 * Returns `{ r, g, b, alpha }` or `null` when the text is not a hex colour.
 */
function hexToRgb(text) {
  const match = /^#?([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i.exec(String(text).trim());
  if (!match) return null;
  let digits = match[1];
  if (digits.length <= 4) digits = [...digits].map((digit) => digit + digit).join('');
  const value = (offset) => parseInt(digits.slice(offset, offset + 2), 16);
  return {
    r: value(0),
    g: value(2),
    b: value(4),
    alpha: digits.length === 8 ? round(value(6) / 255, 3) : 1,
  };
}

module.exports = { clamp, round, rgbToHsl, hslToRgb, rgbToHex, hexToRgb };
