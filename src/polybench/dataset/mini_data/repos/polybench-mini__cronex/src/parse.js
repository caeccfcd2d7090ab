import { FIELDS, MACROS } from './fields.js';

/** A cron expression could not be read. Carries `expression` and, when known, `field`. */
export class CronSyntaxError extends SyntaxError {
  constructor(message, details = {}) {
    super(message);
    this.name = 'CronSyntaxError';
    this.expression = details.expression;
    this.field = details.field;
  }
}

/** Read one number or name of `field`. */
export function parseValue(text, field) {
  const lower = text.toLowerCase();
  if (field.names && field.names.includes(lower)) return field.names.indexOf(lower) + field.firstName;
  if (!/^\d+$/.test(text)) throw new CronSyntaxError(`${field.name}: ${JSON.stringify(text)} is not a number`);
  const value = Number(text);
  if (value < field.min || value > field.max) {
    throw new CronSyntaxError(`${field.name}: ${value} is out of range ${field.min}-${field.max}`);
  }
  return value;
}

/**
 * Expand one field (`*`, `5`, `1-5`, `*\/15`, `10-40/10`, `5/20`, lists of
 * these separated by commas) into the sorted list of the values it allows.
 * In the day-of-week field 7 is folded into 0 (both are Sunday).
 */
export function parseField(text, field) {
  if (text === '') throw new CronSyntaxError(`${field.name}: empty field`);
  const values = new Set();
  for (const part of text.split(',')) {
    const [range, stepText, extra] = part.split('/');
    if (extra !== undefined) throw new CronSyntaxError(`${field.name}: ${JSON.stringify(part)} has two steps`);

    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) === 0) {
        throw new CronSyntaxError(`${field.name}: invalid step ${JSON.stringify(stepText)}`);
      }
      step = Number(stepText);
    }

    let start;
    let end;
    if (range === '*' || range === '?') {
      if (range === '?' && field.name !== 'dayOfMonth' && field.name !== 'dayOfWeek') {
        throw new CronSyntaxError(`${field.name}: "?" is only allowed in the day fields`);
      }
      start = field.min;
      end = field.name === 'dayOfWeek' ? 6 : field.max;
    } else if (range.includes('-')) {
      const [first, last] = range.split('-');
      start = parseValue(first, field);
      end = parseValue(last, field);
      if (start > end) throw new CronSyntaxError(`${field.name}: range ${range} runs backwards`);
    } else {
      start = parseValue(range, field);
      end = stepText === undefined ? start : field.max;
    }
    for (let value = start; value <= end; value += step) values.add(value);
  }
  if (field.name === 'dayOfWeek' && values.delete(7)) values.add(0);
  return [...values].sort((a, b) => a - b);
}

/**
 * Parse a five-field cron expression (or an `@` shorthand) into the allowed
 * values of each field. `restricted` tells, for the two day fields, whether
 * the field limits the days at all: as in crontab(5), a field that starts with
 * `*` (or is `?`) does not.
 */
export function parseExpression(expression) {
  if (typeof expression !== 'string') throw new TypeError('a cron expression is a string');
  const trimmed = expression.trim();
  const source = trimmed.startsWith('@') ? MACROS[trimmed.toLowerCase()] : trimmed;
  if (source === undefined) throw new CronSyntaxError(`unknown shorthand ${JSON.stringify(trimmed)}`, { expression });

  const parts = source.split(/\s+/);
  if (parts.length !== FIELDS.length) {
    throw new CronSyntaxError(`expected ${FIELDS.length} fields, got ${parts.length}: ${JSON.stringify(expression)}`, {
      expression,
    });
  }
  const result = {};
  FIELDS.forEach((field, index) => {
    try {
      result[field.name] = Object.freeze(parseField(parts[index], field));
    } catch (error) {
      if (error instanceof CronSyntaxError) {
        error.expression = expression;
        error.field = field.name;
      }
      throw error;
    }
  });
  const restricts = (text) => !text.startsWith('*') && text !== '?';
  result.restricted = Object.freeze({ dayOfMonth: restricts(parts[2]), dayOfWeek: restricts(parts[4]) });
  return Object.freeze(result);
}

/** True when `expression` parses. */
export function isValid(expression) {
  try {
    parseExpression(expression);
    return true;
  } catch (error) {
    if (error instanceof CronSyntaxError || error instanceof TypeError) return false;
    throw error;
  }
}
