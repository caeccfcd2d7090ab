import { parseExpression } from './parse.js';

const MINUTE = 60 * 1000;
// Weekdays and dates repeat every 28 years within a century, so an expression
// that has not matched for that long never will (`0 0 30 2 *`).
const SEARCH_YEARS = 28;

function toDate(value) {
  const date = value instanceof Date ? new Date(value.getTime()) : new Date(value);
  if (Number.isNaN(date.getTime())) throw new TypeError(`not a date: ${String(value)}`);
  return date;
}

/**
 * A parsed cron expression that can tell whether a date matches it and find
 * the next matching dates. Dates are read in local time, or in UTC with
 * `{ utc: true }`. Seconds are ignored: runs happen at the start of a minute.
 */
export class Schedule {
  constructor(expression, options = {}) {
    this.expression = expression;
    this.utc = Boolean(options.utc);
    this.fields = parseExpression(expression);
    this._sets = {};
    for (const name of ['minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek']) {
      this._sets[name] = new Set(this.fields[name]);
    }
  }

  _get(date, part) {
    return this.utc ? date[`getUTC${part}`]() : date[`get${part}`]();
  }

  _set(date, part, ...values) {
    return this.utc ? date[`setUTC${part}`](...values) : date[`set${part}`](...values);
  }

  /** The calendar fields of `date` as this schedule reads them. */
  _parts(date) {
    return {
      minute: this._get(date, 'Minutes'),
      hour: this._get(date, 'Hours'),
      dayOfMonth: this._get(date, 'Date'),
      month: this._get(date, 'Month') + 1,
      dayOfWeek: this._get(date, 'Day'),
    };
  }

  /** Whether the day of `parts` is a day this schedule runs on. */
  _matchesDay(parts) {
    return this._sets.dayOfMonth.has(parts.dayOfMonth) && this._sets.dayOfWeek.has(parts.dayOfWeek);
  }

  /** True when the schedule runs during the minute of `date`. */
  matches(date) {
    const parts = this._parts(toDate(date));
    return (
      this._sets.month.has(parts.month) &&
      this._matchesDay(parts) &&
      this._sets.hour.has(parts.hour) &&
      this._sets.minute.has(parts.minute)
    );
  }

  /**
   * The first run strictly after `from` (default: now), or `null` when the
   * expression can never match (such as `0 0 30 2 *`).
   */
  next(from = new Date()) {
    const date = toDate(from);
    this._set(date, 'Seconds', 0, 0);
    date.setTime(date.getTime() + MINUTE);
    const limit = new Date(date.getTime());
    this._set(limit, 'FullYear', this._get(limit, 'FullYear') + SEARCH_YEARS);

    while (date < limit) {
      const parts = this._parts(date);
      if (!this._sets.month.has(parts.month)) {
        this._set(date, 'Month', parts.month, 1);
        this._set(date, 'Hours', 0, 0, 0, 0);
      } else if (!this._matchesDay(parts)) {
        this._set(date, 'Date', parts.dayOfMonth + 1);
        this._set(date, 'Hours', 0, 0, 0, 0);
      } else if (!this._sets.hour.has(parts.hour)) {
        this._set(date, 'Hours', parts.hour + 1, 0, 0, 0);
      } else if (!this._sets.minute.has(parts.minute)) {
        date.setTime(date.getTime() + MINUTE);
      } else {
        return date;
      }
    }
    return null;
  }

  /** The next `count` runs after `from`. */
  nextDates(count, from = new Date()) {
    const dates = [];
    let cursor = from;
    while (dates.length < count) {
      const date = this.next(cursor);
      if (date === null) break;
      dates.push(date);
      cursor = date;
    }
    return dates;
  }

  /** Milliseconds from `from` to the next run, or `null`. */
  msUntilNext(from = new Date()) {
    const next = this.next(from);
    return next === null ? null : next.getTime() - toDate(from).getTime();
  }

  toString() {
    return this.expression;
  }
}
