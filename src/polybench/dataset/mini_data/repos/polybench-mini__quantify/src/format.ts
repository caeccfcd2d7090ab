import { DURATION_UNITS, IEC_BYTE_UNITS, SI_BYTE_UNITS, type DurationUnit } from './units.js';

export type DurationStyle = 'short' | 'long';

export interface FormatDurationOptions {
  /** `short` gives `"1h 30m"`, `long` gives `"1 hour 30 minutes"`. Default `short`. */
  style?: DurationStyle;
  /**
   * Keep at most this many units, dropping the smaller ones: with `maxUnits: 2`,
   * `1d 2h 3m` becomes `1d 2h`. Default: every non-zero unit.
   */
  maxUnits?: number;
  /** String put between units. Default `" "`. */
  separator?: string;
}

export interface FormatBytesOptions {
  /** Use binary units (`KiB`, `MiB`, ...) instead of decimal ones (`kB`, `MB`, ...). */
  binary?: boolean;
  /** Maximum number of fraction digits. Default `1`. */
  decimals?: number;
  /** Put a space between the number and the unit. Default `true`. */
  space?: boolean;
}

function label(unit: DurationUnit, count: number, style: DurationStyle): string {
  if (style === 'short') {
    return `${count}${unit.short}`;
  }
  return `${count} ${unit.name}${count === 1 ? '' : 's'}`;
}

function roundTo(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}

/**
 * Formats a number of milliseconds, e.g. `formatDuration(5_400_000)` gives `"1h 30m"`.
 * Fractions of a millisecond are rounded.
 *
 * @throws {RangeError} when `ms` is negative, `NaN` or infinite.
 */
export function formatDuration(ms: number, options: FormatDurationOptions = {}): string {
  const { style = 'short', maxUnits = Infinity, separator = ' ' } = options;
  if (!Number.isFinite(ms) || ms < 0) {
    throw new RangeError(`formatDuration expects a non-negative finite number, got ${ms}`);
  }
  if (maxUnits < 1) {
    throw new RangeError(`maxUnits must be at least 1, got ${maxUnits}`);
  }

  let remaining = Math.round(ms);
  const parts: string[] = [];
  for (const unit of DURATION_UNITS) {
    if (parts.length >= maxUnits) {
      break;
    }
    const count = Math.floor(remaining / unit.ms);
    if (count > 0) {
      parts.push(label(unit, count, style));
      remaining -= count * unit.ms;
    }
  }

  if (parts.length === 0) {
    const smallest = DURATION_UNITS[DURATION_UNITS.length - 1]!;
    return label(smallest, 0, style);
  }
  return parts.join(separator);
}

/**
 * Formats a number of bytes with the largest unit that keeps the number at or above 1,
 * e.g. `formatBytes(1536)` gives `"1.5 kB"` and `formatBytes(1536, { binary: true })`
 * gives `"1.5 KiB"`. Negative sizes (differences) keep their sign.
 *
 * @throws {RangeError} when `bytes` is `NaN` or infinite.
 */
export function formatBytes(bytes: number, options: FormatBytesOptions = {}): string {
  const { binary = false, decimals = 1, space = true } = options;
  if (!Number.isFinite(bytes)) {
    throw new RangeError(`formatBytes expects a finite number, got ${bytes}`);
  }
  const units = binary ? IEC_BYTE_UNITS : SI_BYTE_UNITS;
  const magnitude = Math.abs(bytes);

  let index = units.findIndex((unit) => unit.factor <= magnitude);
  if (index === -1) {
    index = units.length - 1;
  }
  let unit = units[index]!;
  let value = roundTo(magnitude / unit.factor, decimals);
  // 999_999 bytes rounds to "1000 kB": move up to the next unit instead.
  const previous = units[index - 1];
  if (previous !== undefined && value * unit.factor >= previous.factor) {
    unit = previous;
    value = roundTo(magnitude / unit.factor, decimals);
  }

  const sign = bytes < 0 && value !== 0 ? '-' : '';
  return `${sign}${value}${space ? ' ' : ''}${unit.symbol}`;
}
