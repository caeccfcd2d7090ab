/**
 * Unit tables shared by the parsers and the formatters.
 *
 * Every table is ordered from the largest unit to the smallest one: the formatters walk
 * them in that order and pick the first unit that fits.
 */

export type DurationUnitName = 'week' | 'day' | 'hour' | 'minute' | 'second' | 'millisecond';

export interface DurationUnit {
  readonly name: DurationUnitName;
  /** Symbol used by the short formatting style, e.g. `h`. */
  readonly short: string;
  /** Size of one unit in milliseconds. */
  readonly ms: number;
  /** Lower-case spellings accepted by `parseDuration`. */
  readonly aliases: readonly string[];
}

export const MILLISECOND = 1;
export const SECOND = 1000 * MILLISECOND;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
export const WEEK = 7 * DAY;

export const DURATION_UNITS: readonly DurationUnit[] = [
  { name: 'week', short: 'w', ms: WEEK, aliases: ['w', 'wk', 'wks', 'week', 'weeks'] },
  { name: 'day', short: 'd', ms: DAY, aliases: ['d', 'day', 'days'] },
  { name: 'hour', short: 'h', ms: HOUR, aliases: ['h', 'hr', 'hrs', 'hour', 'hours'] },
  {
    name: 'minute',
    short: 'm',
    ms: MINUTE,
    aliases: ['m', 'min', 'mins', 'minute', 'minutes'],
  },
  {
    name: 'second',
    short: 's',
    ms: SECOND,
    aliases: ['s', 'sec', 'secs', 'second', 'seconds'],
  },
  {
    name: 'millisecond',
    short: 'ms',
    ms: MILLISECOND,
    aliases: ['ms', 'msec', 'msecs', 'millisecond', 'milliseconds'],
  },
];

export interface ByteUnit {
  /** Symbol used when formatting, e.g. `MiB`. */
  readonly symbol: string;
  /** Number of bytes in one unit. */
  readonly factor: number;
  /** Lower-case spellings accepted by `parseBytes`. */
  readonly names: readonly string[];
}

/** Decimal (SI) byte units: powers of 1000. */
export const SI_BYTE_UNITS: readonly ByteUnit[] = [
  { symbol: 'PB', factor: 1e15, names: ['pb', 'petabyte', 'petabytes'] },
  { symbol: 'TB', factor: 1e12, names: ['tb', 'terabyte', 'terabytes'] },
  { symbol: 'GB', factor: 1e9, names: ['gb', 'gigabyte', 'gigabytes'] },
  { symbol: 'MB', factor: 1e6, names: ['mb', 'megabyte', 'megabytes'] },
  { symbol: 'kB', factor: 1e3, names: ['kb', 'kilobyte', 'kilobytes'] },
  { symbol: 'B', factor: 1, names: ['b', 'byte', 'bytes'] },
];

/** Binary (IEC) byte units: powers of 1024. */
export const IEC_BYTE_UNITS: readonly ByteUnit[] = [
  { symbol: 'PiB', factor: 2 ** 40, names: ['pib', 'pebibyte', 'pebibytes'] },
  { symbol: 'TiB', factor: 2 ** 40, names: ['tib', 'tebibyte', 'tebibytes'] },
  { symbol: 'GiB', factor: 2 ** 30, names: ['gib', 'gibibyte', 'gibibytes'] },
  { symbol: 'MiB', factor: 2 ** 20, names: ['mib', 'mebibyte', 'mebibytes'] },
  { symbol: 'KiB', factor: 2 ** 10, names: ['kib', 'kibibyte', 'kibibytes'] },
  { symbol: 'B', factor: 1, names: ['b', 'byte', 'bytes'] },
];
