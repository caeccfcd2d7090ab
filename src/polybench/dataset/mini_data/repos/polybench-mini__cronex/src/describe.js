import { parseExpression } from './parse.js';
import { FIELDS } from './fields.js';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June',
  'July', 'August', 'September', 'October', 'November', 'December',
];

const pad = (value) => String(value).padStart(2, '0');

/** Join words as "a", "a and b", "a, b and c". */
function joinWords(words) {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/** Group sorted values into runs and name them: "Monday through Friday and Sunday". */
function listValues(values, name = String) {
  const runs = [];
  for (const value of values) {
    const last = runs[runs.length - 1];
    if (last && value === last[1] + 1) last[1] = value;
    else runs.push([value, value]);
  }
  return joinWords(
    runs.flatMap(([first, last]) => {
      if (first === last) return [name(first)];
      if (last === first + 1) return [name(first), name(last)];
      return [`${name(first)} through ${name(last)}`];
    }),
  );
}

function isEvery(values, fieldName) {
  const field = FIELDS.find((candidate) => candidate.name === fieldName);
  const max = fieldName === 'dayOfWeek' ? 6 : field.max;
  return values.length === max - field.min + 1;
}

/**
 * Describe a cron expression in English, e.g. `30 9 * * 1-5` ->
 * "At 09:30 on Monday through Friday".
 */
export function describe(expression) {
  const fields = parseExpression(expression);
  const { minute, hour, dayOfMonth, month, dayOfWeek, restricted } = fields;

  let text;
  if (minute.length === 1 && hour.length === 1) {
    text = `At ${pad(hour[0])}:${pad(minute[0])}`;
  } else if (isEvery(minute, 'minute') && isEvery(hour, 'hour')) {
    text = 'Every minute';
  } else {
    text = isEvery(minute, 'minute') ? 'Every minute' : `At minute ${listValues(minute)}`;
    text += isEvery(hour, 'hour') ? (text === 'Every minute' ? '' : ' past every hour') : ` past hour ${listValues(hour)}`;
  }

  const days = [];
  if (restricted.dayOfMonth) days.push(`on day-of-month ${listValues(dayOfMonth)}`);
  if (restricted.dayOfWeek) days.push(`on ${listValues(dayOfWeek, (day) => DAYS[day])}`);
  if (days.length) text += ` ${days.join(' or ')}`;

  if (!isEvery(month, 'month')) text += ` in ${listValues(month, (value) => MONTHS[value - 1])}`;
  return text;
}
