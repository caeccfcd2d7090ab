'use strict';

const { Color } = require('./color');
const { parseColor, tryParseColor } = require('./parse');
const { contrastRatio, isReadable, mostReadable } = require('./contrast');
const convert = require('./convert');

/** Shorthand: `hues('#f80').darken(10).toHex()`. */
function hues(input) {
  return parseColor(input);
}

module.exports = Object.assign(hues, {
  Color,
  parseColor,
  tryParseColor,
  contrastRatio,
  isReadable,
  mostReadable,
  convert,
});
