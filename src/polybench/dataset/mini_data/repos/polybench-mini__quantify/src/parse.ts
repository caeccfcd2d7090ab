import { ParseError } from './errors.js';
import { Tokenizer, type NumberToken } from './tokenizer.js';
import {
  DURATION_UNITS,
  IEC_BYTE_UNITS,
  SI_BYTE_UNITS,
  type ByteUnit,
  type DurationUnit,
  type DurationUnitName,
} from './units.js';

export interface ParseDurationOptions {
  /**
   * Unit applied to a bare number such as `"1500"`. Without it a number must always be
   * followed by a unit.
   */
  defaultUnit?: DurationUnitName;
}

/** Words that may join two parts of a duration: `"1 hour and 5 minutes"`. */
const CONNECTIVES = new Set(['and']);

function findDurationUnit(word: string): DurationUnit | undefined {
  const lower = word.toLowerCase();
  return DURATION_UNITS.find((unit) => unit.aliases.includes(lower));
}

function findByteUnit(word: string): ByteUnit | undefined {
  const lower = word.toLowerCase();
  return (
    SI_BYTE_UNITS.find((unit) => unit.names.includes(lower)) ??
    IEC_BYTE_UNITS.find((unit) => unit.names.includes(lower))
  );
}

/**
 * Parses a human-readable duration and returns it in milliseconds.
 *
 * ```ts
 * parseDuration('1h 30m');            // 5_400_000
 * parseDuration('2 days, 4 hours');   // 187_200_000
 * parseDuration('1500', { defaultUnit: 'millisecond' }); // 1500
 * ```
 *
 * @throws {ParseError} when the input is empty, a unit is unknown or repeated, or a
 *   number has no unit and no `defaultUnit` was given.
 */
export function parseDuration(input: string, options: ParseDurationOptions = {}): number {
  const tokens = new Tokenizer(input);
  const seen = new Set<DurationUnitName>();
  let total = 0;
  let parts = 0;

  for (let token = tokens.next(); token !== null; token = tokens.next()) {
    if (token.kind === 'word') {
      if (parts > 0 && CONNECTIVES.has(token.text.toLowerCase())) {
        continue;
      }
      throw new ParseError(`Expected a number, found ${JSON.stringify(token.text)}`, input, token.offset);
    }

    const amount: NumberToken = token;
    const next = tokens.peek();
    let unit: DurationUnit | undefined;
    if (next !== null && next.kind === 'word' && !CONNECTIVES.has(next.text.toLowerCase())) {
      tokens.next();
      unit = findDurationUnit(next.text);
      if (unit === undefined) {
        throw new ParseError(`Unknown duration unit ${JSON.stringify(next.text)}`, input, next.offset);
      }
    } else if (options.defaultUnit !== undefined && parts === 0 && next === null) {
      unit = DURATION_UNITS.find((candidate) => candidate.name === options.defaultUnit);
    }
    if (unit === undefined) {
      throw new ParseError(`Missing unit after ${amount.text}`, input, amount.offset + amount.text.length);
    }
    if (seen.has(unit.name)) {
      throw new ParseError(`Unit ${JSON.stringify(unit.name)} appears more than once`, input, amount.offset);
    }
    seen.add(unit.name);
    total += amount.value * unit.ms;
    parts++;
  }

  if (parts === 0) {
    throw new ParseError('Empty duration', input, 0);
  }
  return Math.round(total);
}

/**
 * Parses a byte size such as `"1.5 GB"`, `"512KiB"` or `"2048"` (bytes) and returns the
 * number of bytes, rounded to an integer. Decimal (`kB`, `MB`, ...) and binary (`KiB`,
 * `MiB`, ...) units are both accepted; unit names are case-insensitive.
 *
 * @throws {ParseError} when the input is not a single number with an optional unit.
 */
export function parseBytes(input: string): number {
  const tokens = new Tokenizer(input);
  const amount = tokens.next();
  if (amount === null) {
    throw new ParseError('Empty size', input, 0);
  }
  if (amount.kind !== 'number') {
    throw new ParseError(`Expected a number, found ${JSON.stringify(amount.text)}`, input, amount.offset);
  }

  let factor = 1;
  const word = tokens.next();
  if (word !== null) {
    if (word.kind !== 'word') {
      throw new ParseError(`Unexpected ${JSON.stringify(word.text)}`, input, word.offset);
    }
    const unit = findByteUnit(word.text);
    if (unit === undefined) {
      throw new ParseError(`Unknown size unit ${JSON.stringify(word.text)}`, input, word.offset);
    }
    factor = unit.factor;
  }

  const rest = tokens.next();
  if (rest !== null) {
    throw new ParseError(`Unexpected ${JSON.stringify(rest.text)}`, input, rest.offset);
  }
  return Math.round(amount.value * factor);
}
