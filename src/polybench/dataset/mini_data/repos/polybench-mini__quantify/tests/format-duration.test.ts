import { describe, expect, it } from 'vitest';
import { DAY, HOUR, MINUTE, SECOND, WEEK, formatDuration, parseDuration } from '../src/index.js';

describe('formatDuration', () => {
  it('uses the short style by default', () => {
    expect(formatDuration(90 * MINUTE)).toBe('1h 30m');
    expect(formatDuration(WEEK + DAY + 250)).toBe('1w 1d 250ms');
  });

  it('spells units out in the long style', () => {
    expect(formatDuration(HOUR + 2 * MINUTE, { style: 'long' })).toBe('1 hour 2 minutes');
    expect(formatDuration(SECOND, { style: 'long' })).toBe('1 second');
  });

  it('formats zero', () => {
    expect(formatDuration(0)).toBe('0ms');
    expect(formatDuration(0, { style: 'long' })).toBe('0 milliseconds');
  });

  it('rounds fractions of a millisecond', () => {
    expect(formatDuration(1999.6)).toBe('2s');
  });

  it('limits the number of units', () => {
    expect(formatDuration(DAY + 2 * HOUR + 3 * MINUTE, { maxUnits: 2 })).toBe('1d 2h');
    expect(() => formatDuration(SECOND, { maxUnits: 0 })).toThrow(RangeError);
  });

  it('uses a custom separator', () => {
    expect(formatDuration(HOUR + MINUTE, { style: 'long', separator: ', ' })).toBe(
      '1 hour, 1 minute',
    );
  });

  it('rejects values that are not finite', () => {
    expect(() => formatDuration(Number.NaN)).toThrow(RangeError);
    expect(() => formatDuration(Infinity)).toThrow(RangeError);
  });

  it('round-trips through parseDuration', () => {
    for (const ms of [1, 61 * SECOND, 3 * DAY + 5 * HOUR, 2 * WEEK + 999]) {
      expect(parseDuration(formatDuration(ms))).toBe(ms);
      expect(parseDuration(formatDuration(ms, { style: 'long' }))).toBe(ms);
    }
  });
});
