import { toBoolean, toNumber } from '../src';

describe('toNumber', () => {
  it.each([
    ['42', 42],
    ['-7', -7],
    ['3.25', 3.25],
    ['1e3', 1000],
    ['0x1f', 31],
    ['0b101', 5],
  ])('converts %s', (raw, expected) => {
    expect(toNumber(raw)).toBe(expected);
  });

  it('rejects text and empty strings', () => {
    expect(toNumber('ten')).toBeUndefined();
    expect(toNumber('')).toBeUndefined();
    expect(toNumber('  ')).toBeUndefined();
  });
});

describe('toBoolean', () => {
  it('accepts the usual spellings', () => {
    expect(['true', 'YES', 'on', '1'].map(toBoolean)).toEqual([true, true, true, true]);
    expect(['false', 'No', 'OFF', '0'].map(toBoolean)).toEqual([false, false, false, false]);
  });

  it('rejects anything else', () => {
    expect(toBoolean('maybe')).toBeUndefined();
  });
});
