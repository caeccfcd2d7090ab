import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { Schedule } from '../src/schedule.js';

const utc = (expression) => new Schedule(expression, { utc: true });
const iso = (dates) => dates.map((date) => date.toISOString());

describe('Schedule', () => {
  it('matches the minute of a date', () => {
    const schedule = utc('30 9 * * 1-5');
    assert.equal(schedule.matches('2024-03-04T09:30:00Z'), true);
    assert.equal(schedule.matches('2024-03-04T09:30:59Z'), true);
    assert.equal(schedule.matches('2024-03-04T09:31:00Z'), false);
    assert.equal(schedule.matches('2024-03-03T09:30:00Z'), false);
  });

  it('finds the next run strictly after a date', () => {
    const schedule = utc('*/15 * * * *');
    assert.equal(schedule.next(new Date('2024-03-04T10:00:00Z')).toISOString(), '2024-03-04T10:15:00.000Z');
    assert.equal(schedule.next(new Date('2024-03-04T10:07:42Z')).toISOString(), '2024-03-04T10:15:00.000Z');
  });

  it('rolls over days, months and years', () => {
    assert.equal(utc('0 0 * * *').next('2024-12-31T23:59:00Z').toISOString(), '2025-01-01T00:00:00.000Z');
    assert.equal(utc('0 12 1 * *').next('2024-01-31T13:00:00Z').toISOString(), '2024-02-01T12:00:00.000Z');
    assert.equal(utc('0 0 29 2 *').next('2024-03-01T00:00:00Z').toISOString(), '2028-02-29T00:00:00.000Z');
  });

  it('lists several runs with nextDates', () => {
    assert.deepEqual(iso(utc('0 9 * * mon,thu').nextDates(3, '2024-03-01T00:00:00Z')), [
      '2024-03-04T09:00:00.000Z',
      '2024-03-07T09:00:00.000Z',
      '2024-03-11T09:00:00.000Z',
    ]);
  });

  it('runs on weekdays only when the day-of-month is a wildcard', () => {
    assert.deepEqual(iso(utc('0 0 * * 1').nextDates(2, '2024-01-01T00:00:00Z')), [
      '2024-01-08T00:00:00.000Z',
      '2024-01-15T00:00:00.000Z',
    ]);
  });

  it('runs on dates only when the day-of-week is a wildcard', () => {
    assert.deepEqual(iso(utc('0 0 13 * *').nextDates(2, '2024-01-01T00:00:00Z')), [
      '2024-01-13T00:00:00.000Z',
      '2024-02-13T00:00:00.000Z',
    ]);
  });

  it('returns null for an expression that never runs', () => {
    assert.equal(utc('0 0 30 2 *').next('2024-01-01T00:00:00Z'), null);
    assert.deepEqual(utc('0 0 31 4 *').nextDates(3, '2024-01-01T00:00:00Z'), []);
  });

  it('measures the time until the next run', () => {
    assert.equal(utc('0 * * * *').msUntilNext('2024-01-01T10:59:30Z'), 30 * 1000);
  });

  it('rejects invalid dates', () => {
    assert.throws(() => utc('* * * * *').next('not a date'), TypeError);
  });
});
