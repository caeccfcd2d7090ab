/** Three-letter month names, as accepted in the month field (`jan` is 1). */
export const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** Three-letter day names, as accepted in the day-of-week field (`sun` is 0). */
export const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/**
 * The five fields of a cron expression, in order. `names` are the aliases a
 * field accepts, `firstName` the value of the first alias.
 */
export const FIELDS = Object.freeze([
  Object.freeze({ name: 'minute', min: 0, max: 59 }),
  Object.freeze({ name: 'hour', min: 0, max: 23 }),
  Object.freeze({ name: 'dayOfMonth', min: 1, max: 31 }),
  Object.freeze({ name: 'month', min: 1, max: 12, names: MONTH_NAMES, firstName: 1 }),
  // 0 and 7 are both Sunday.
  Object.freeze({ name: 'dayOfWeek', min: 0, max: 7, names: DAY_NAMES, firstName: 0 }),
]);

/** The `@` shorthands of crontab(5). */
export const MACROS = Object.freeze({
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
});

/** The field called `name`; throws on an unknown name. */
export function fieldByName(name) {
  const field = FIELDS.find((candidate) => candidate.name === name);
  if (!field) throw new RangeError(`unknown cron field ${JSON.stringify(name)}`);
  return field;
}
