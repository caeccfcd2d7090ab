import { describe, expect, it } from 'vitest';
import { DAY, HOUR, MINUTE, ParseError, SECOND, WEEK, parseDuration } from '../src/index.js';

describe('parseDuration', () => {
  describe('single units', () => {
    it.each([
      ['250ms', 250],
      ['90s', 90 * SECOND],
      ['15 min', 15 * MINUTE],
      ['2 hours', 2 * HOUR],
      ['3d', 3 * DAY],
      ['1 week', WEEK],
    ])('parses %s', (input, expected) => {
      expect(parseDuration(input)).toBe(expected);
    });

    it('accepts fractions', () => {
      expect(parseDuration('1.5h')).toBe(90 * MINUTE);
      expect(parseDuration('.5 s')).toBe(500);
    });

    it('is case-insensitive', () => {
      expect(parseDuration('2 Hours 5 MIN')).toBe(2 * HOUR + 5 * MINUTE);
    });
  });

  describe('compound durations', () => {
    it('adds every part', () => {
      expect(parseDuration('1h 30m')).toBe(90 * MINUTE);
      expect(parseDuration('1d2h3m4s5ms')).toBe(DAY + 2 * HOUR + 3 * MINUTE + 4 * SECOND + 5);
    });

    it('accepts commas and "and"', () => {
      expect(parseDuration('2 days, 4 hours and 30 minutes')).toBe(
        2 * DAY + 4 * HOUR + 30 * MINUTE,
      );
    });

    it('rejects a unit given twice', () => {
      expect(() => parseDuration('1h 2 hours')).toThrow(/"hour" appears more than once/);
    });
  });

  describe('bare numbers', () => {
    it('needs a default unit', () => {
      expect(() => parseDuration('1500')).toThrow(/Missing unit after 1500/);
    });

    it('uses the default unit', () => {
      expect(parseDuration('1500', { defaultUnit: 'millisecond' })).toBe(1500);
      expect(parseDuration('2', { defaultUnit: 'minute' })).toBe(2 * MINUTE);
    });

    it('does not apply the default unit inside a compound duration', () => {
      expect(() => parseDuration('1h 30', { defaultUnit: 'minute' })).toThrow(ParseError);
    });
  });

  describe('errors', () => {
    it('rejects an empty string', () => {
      expect(() => parseDuration('   ')).toThrow(/Empty duration/);
    });

    it('rejects unknown units', () => {
      expect(() => parseDuration('3 fortnights')).toThrow(/Unknown duration unit "fortnights"/);
    });

    it('rejects a leading word', () => {
      expect(() => parseDuration('and 5m')).toThrow(/Expected a number/);
    });

    it('exposes the input and offset', () => {
      try {
        parseDuration('10 m 5 parsecs');
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(ParseError);
        expect((error as ParseError).offset).toBe(7);
        expect((error as ParseError).input).toBe('10 m 5 parsecs');
      }
    });
  });
});
