import assert from 'node:assert';

import { isLength, loadLength, parseLength } from '../src/units';

describe('parseLength', () => {
  it('reads millimetres', () => {
    expect(parseLength('12mm')).toBe(12);
  });

  it('reads centimetres', () => {
    assert.strictEqual(parseLength('3cm'), 30);
  });
});

describe('isLength', () => {
  it('refuses words', () => {
    assert.ok(!isLength('long'));
  });
});
