export { Schedule } from './schedule.js';
export { parseExpression, parseField, parseValue, isValid, CronSyntaxError } from './parse.js';
export { describe } from './describe.js';
export { FIELDS, MACROS, MONTH_NAMES, DAY_NAMES } from './fields.js';
