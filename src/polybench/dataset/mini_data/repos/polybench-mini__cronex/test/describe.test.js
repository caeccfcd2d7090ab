import { describe as group, it } from 'node:test';
import assert from 'node:assert/strict';

import { describe } from '../src/describe.js';

group('describe', () => {
  it('describes a fixed time on weekdays', () => {
    assert.equal(describe('30 9 * * 1-5'), 'At 09:30 on Monday through Friday');
  });

  it('describes every minute and stepped minutes', () => {
    assert.equal(describe('* * * * *'), 'Every minute');
    assert.equal(describe('*/15 * * * *'), 'At minute 0, 15, 30 and 45 past every hour');
  });

  it('describes hours, day lists and months', () => {
    assert.equal(
      describe('0 */6 * jan,jul sat,sun'),
      'At minute 0 past hour 0, 6, 12 and 18 on Sunday and Saturday in January and July',
    );
  });

  it('joins restricted day fields with or', () => {
    assert.equal(describe('0 0 1,15 * 1'), 'At 00:00 on day-of-month 1 and 15 or on Monday');
  });

  it('describes shorthands', () => {
    assert.equal(describe('@monthly'), 'At 00:00 on day-of-month 1');
  });
});
