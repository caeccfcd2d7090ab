'use strict';

const { Color } = require('./color');

const NUMBER = '[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:e[+-]?\\d+)?';
// Modern space-separated syntax `rgb(1 2 3 / 50%)` and legacy `rgb(1, 2, 3, 0.5)`.
const FUNCTION = new RegExp(
  `^(rgba?|hsla?)\\(\\s*(${NUMBER})(deg|turn|rad|%)?\\s*(?:,\\s*|\\s+)(${NUMBER})(%)?\\s*(?:,\\s*|\\s+)(${NUMBER})(%)?\\s*(?:(?:,|\\/)\\s*(${NUMBER})(%)?\\s*)?\\)$`,
  'i',
);

function alphaValue(number, percent) {
  if (number === undefined) return 1;
  return percent ? Number(number) / 100 : Number(number);
}

function hueDegrees(number, unit) {
  const value = Number(number);
  switch ((unit || 'deg').toLowerCase()) {
    case 'turn':
      return value * 360;
    case 'rad':
      return (value * 180) / Math.PI;
    case 'deg':
      return value;
    default:
      return NaN;
  }
}

/** Read one `rgb()`/`rgba()`/`hsl()`/`hsla()` call, or return `null`. */
function parseFunction(text) {
  const match = FUNCTION.exec(text);
  if (!match) return null;
  const [, name, first, firstUnit, second, secondPercent, third, thirdPercent, alpha, alphaPercent] = match;
  if (name.toLowerCase().startsWith('rgb')) {
    const channel = (value, percent) => (percent ? (Number(value) / 100) * 255 : Number(value));
    if (firstUnit && firstUnit !== '%') return null;
    return new Color(
      channel(first, firstUnit === '%'),
      channel(second, secondPercent),
      channel(third, thirdPercent),
      alphaValue(alpha, alphaPercent),
    );
  }
  const hue = hueDegrees(first, firstUnit);
  if (Number.isNaN(hue) || !secondPercent || !thirdPercent) return null;
  return Color.fromHsl(hue, Number(second), Number(third), alphaValue(alpha, alphaPercent));
}

/**
 * Parse any CSS colour: hex (`#f80`, `#ff8800cc`), `rgb()`/`rgba()`,
 * `hsl()`/`hsla()` (legacy comma and modern space syntax), a named colour or
 * `transparent`. Throws `SyntaxError` on anything else.
 */
function parseColor(input) {
  if (input instanceof Color) return input;
  const text = String(input).trim();
  if (text.toLowerCase() === 'transparent') return new Color(0, 0, 0, 0);
  if (text.startsWith('#')) return Color.fromHex(text);
  const named = Color.named(text);
  if (named) return named;
  const parsed = parseFunction(text);
  if (parsed) return parsed;
  throw new SyntaxError(`not a CSS colour: ${JSON.stringify(input)}`);
}

/** Like `parseColor` but returns `null` instead of throwing. */
function tryParseColor(input) {
  try {
    return parseColor(input);
  } catch (error) {
    if (error instanceof SyntaxError || error instanceof TypeError) return null;
    throw error;
  }
}

module.exports = { parseColor, tryParseColor };
