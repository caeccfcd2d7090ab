'use strict';

const { parseColor } = require('./parse');

// Minimum ratios of WCAG 2.1 success criteria 1.4.3 (AA) and 1.4.6 (AAA).
const THRESHOLDS = {
  AA: { normal: 4.5, large: 3 },
  AAA: { normal: 7, large: 4.5 },
};

/**
 * Alpha-composite `color` over the opaque `background`, as a browser paints
 * it. Contrast is only defined between opaque colours.
 */
function flatten(color, background) {
  if (color.alpha >= 1) return color;
  const opaqueBackground = background.withAlpha(1);
  return opaqueBackground.mix(color.withAlpha(1), color.alpha);
}

/** The WCAG contrast ratio between two colours, from 1 to 21. */
function contrastRatio(foreground, background) {
  const back = parseColor(background).withAlpha(1);
  const front = flatten(parseColor(foreground), back);
  const a = front.luminance();
  const b = back.luminance();
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}

/**
 * True when `foreground` text on `background` meets the WCAG level
 * (`AA` or `AAA`, default `AA`) for the text size (`normal` or `large`).
 */
function isReadable(foreground, background, options = {}) {
  const level = options.level || 'AA';
  const size = options.size || 'normal';
  if (!THRESHOLDS[level] || !THRESHOLDS[level][size]) {
    throw new RangeError(`unknown WCAG level/size: ${level}/${size}`);
  }
  return contrastRatio(foreground, background) >= THRESHOLDS[level][size];
}

/**
 * The candidate with the highest contrast against `background` (the first one
 * on ties). With no candidates, black or white.
 */
function mostReadable(background, candidates = ['#000000', '#ffffff']) {
  let best = null;
  let bestRatio = -1;
  for (const candidate of candidates) {
    const color = parseColor(candidate);
    const ratio = contrastRatio(color, background);
    if (ratio > bestRatio) {
      best = color;
      bestRatio = ratio;
    }
  }
  return best;
}

module.exports = { contrastRatio, isReadable, mostReadable, THRESHOLDS };
