/**
 * Conversions from the raw strings of argv to option values. They return `undefined`
 * for input they do not accept and leave error reporting to the caller.
 */

const TRUE_WORDS = new Set(['true', 'yes', 'on', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'off', '0']);

/** Decimal, hexadecimal (`0x1f`), octal (`0o17`) and binary (`0b101`) numbers, and exponents. */
export function toNumber(raw: string): number | undefined {
  const text = raw.trim();
  if (text === '') {
    return undefined;
  }
  const value = Number(text);
  return Number.isNaN(value) ? undefined : value;
}

/** `true`/`false`, `yes`/`no`, `on`/`off`, `1`/`0`, case-insensitive. */
export function toBoolean(raw: string): boolean | undefined {
  const text = raw.trim().toLowerCase();
  if (TRUE_WORDS.has(text)) {
    return true;
  }
  if (FALSE_WORDS.has(text)) {
    return false;
  }
  return undefined;
}
