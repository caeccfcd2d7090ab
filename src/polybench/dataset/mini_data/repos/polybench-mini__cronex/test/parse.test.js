import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { parseExpression, parseField, isValid, CronSyntaxError } from '../src/parse.js';
import { fieldByName } from '../src/fields.js';

const field = (name, text) => parseField(text, fieldByName(name));

describe('parseField', () => {
  it('expands wildcards, lists and ranges', () => {
    assert.deepEqual(field('hour', '*').length, 24);
    assert.deepEqual(field('minute', '5,1,3'), [1, 3, 5]);
    assert.deepEqual(field('dayOfMonth', '10-13'), [10, 11, 12, 13]);
  });

  it('applies steps to wildcards, ranges and single starts', () => {
    assert.deepEqual(field('minute', '*/15'), [0, 15, 30, 45]);
    assert.deepEqual(field('hour', '8-18/4'), [8, 12, 16]);
    assert.deepEqual(field('minute', '50/5'), [50, 55]);
  });

  it('accepts month and day names in any case', () => {
    assert.deepEqual(field('month', 'JAN,jul-Sep'), [1, 7, 8, 9]);
    assert.deepEqual(field('dayOfWeek', 'mon-fri'), [1, 2, 3, 4, 5]);
  });

  it('folds day 7 into Sunday', () => {
    assert.deepEqual(field('dayOfWeek', '7'), [0]);
    assert.deepEqual(field('dayOfWeek', '5-7'), [0, 5, 6]);
  });

  it('rejects out-of-range values, backwards ranges and bad steps', () => {
    assert.throws(() => field('minute', '60'), /out of range 0-59/);
    assert.throws(() => field('hour', '10-2'), /runs backwards/);
    assert.throws(() => field('minute', '*/0'), /invalid step/);
    assert.throws(() => field('minute', '1/2/3'), /two steps/);
    assert.throws(() => field('month', 'foo'), CronSyntaxError);
    assert.throws(() => field('hour', '?'), /only allowed in the day fields/);
  });
});

describe('parseExpression', () => {
  it('returns the values of all five fields', () => {
    const fields = parseExpression('30 9 * * 1-5');
    assert.deepEqual(fields.minute, [30]);
    assert.deepEqual(fields.hour, [9]);
    assert.equal(fields.dayOfMonth.length, 31);
    assert.equal(fields.month.length, 12);
    assert.deepEqual(fields.dayOfWeek, [1, 2, 3, 4, 5]);
  });

  it('expands @ shorthands', () => {
    assert.deepEqual(parseExpression('@hourly').minute, [0]);
    assert.deepEqual(parseExpression('@weekly').dayOfWeek, [0]);
    assert.deepEqual(parseExpression(' @Yearly ').month, [1]);
  });

  it('tells which day fields are restricted', () => {
    assert.deepEqual(parseExpression('0 0 1 * *').restricted, { dayOfMonth: true, dayOfWeek: false });
    assert.deepEqual(parseExpression('0 0 ? * mon').restricted, { dayOfMonth: false, dayOfWeek: true });
    assert.deepEqual(parseExpression('0 0 */2 * *').restricted, { dayOfMonth: false, dayOfWeek: false });
  });

  it('names the expression and field in syntax errors', () => {
    let caught;
    try {
      parseExpression('0 25 * * *');
    } catch (error) {
      caught = error;
    }
    assert.ok(caught instanceof CronSyntaxError);
    assert.equal(caught.field, 'hour');
    assert.equal(caught.expression, '0 25 * * *');
  });

  it('requires exactly five fields', () => {
    assert.throws(() => parseExpression('* * * *'), /expected 5 fields, got 4/);
    assert.throws(() => parseExpression('@often'), /unknown shorthand/);
    assert.equal(isValid('0 0 * * *'), true);
    assert.equal(isValid('0 0 * *'), false);
    assert.equal(isValid(42), false);
  });
});
