'use strict';

const { EnvTypeError } = require('./errors');

// Returned by a converter that cannot make sense of its input.
const INVALID = Symbol('invalid');

const TRUE_WORDS = new Set(['true', 'yes', 'on', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'off', '0']);
const DURATION_UNITS = { ms: 1, s: 1000, m: 60 * 1000, h: 60 * 60 * 1000, d: 24 * 60 * 60 * 1000 };

function toNumber(value) {
  if (value.trim() === '') return INVALID;
  const number = Number(value);
  return Number.isFinite(number) ? number : INVALID;
}

/**
 * The built-in types. `convert(text, spec)` returns the typed value or
 * `INVALID`; `description` completes "expected ..." in error messages.
 */
const TYPES = {
  string: {
    description: 'a string',
    convert: (value) => value,
  },
  number: {
    description: 'a number',
    convert: toNumber,
  },
  integer: {
    description: 'an integer',
    convert(value) {
      const number = toNumber(value);
      return Number.isInteger(number) ? number : INVALID;
    },
  },
  boolean: {
    description: 'a boolean (true/false, yes/no, on/off, 1/0)',
    convert(value) {
      const word = value.trim().toLowerCase();
      if (TRUE_WORDS.has(word)) return true;
      if (FALSE_WORDS.has(word)) return false;
      return INVALID;
    },
  },
  port: {
    description: 'a port number (0-65535)',
    convert(value) {
      const number = toNumber(value);
      return Number.isInteger(number) && number >= 0 && number <= 65535 ? number : INVALID;
    },
  },
  url: {
    description: 'an absolute URL',
    convert(value) {
      try {
        return new URL(value.trim()).href;
      } catch {
        return INVALID;
      }
    },
  },
  json: {
    description: 'JSON',
    convert(value) {
      try {
        return JSON.parse(value);
      } catch {
        return INVALID;
      }
    },
  },
  list: {
    description: 'a list',
    convert(value, spec) {
      const separator = spec.separator === undefined ? ',' : spec.separator;
      return value
        .split(separator)
        .map((item) => item.trim())
        .filter((item) => item !== '');
    },
  },
  duration: {
    description: 'a duration such as 250ms, 30s, 5m, 2h or 1d',
    convert(value) {
      const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(value);
      if (!match) return INVALID;
      return Number(match[1]) * DURATION_UNITS[match[2] || 'ms'];
    },
  },
};

/**
 * Convert the text `value` of variable `key` to the type named by `spec.type`
 * (`string` when absent). Throws `EnvTypeError` when the text does not fit.
 */
function coerce(value, spec, key) {
  const type = spec.type || 'string';
  if (!Object.prototype.hasOwnProperty.call(TYPES, type)) {
    throw new TypeError(`${key}: unknown type ${JSON.stringify(type)}`);
  }
  const result = TYPES[type].convert(String(value), spec);
  if (result === INVALID) {
    throw new EnvTypeError(`${key}: expected ${TYPES[type].description}, got ${JSON.stringify(value)}`, {
      key,
      type,
      value,
    });
  }
  return result;
}

/** The names of the built-in types. */
function typeNames() {
  return Object.keys(TYPES);
}

module.exports = { coerce, typeNames, TYPES };
