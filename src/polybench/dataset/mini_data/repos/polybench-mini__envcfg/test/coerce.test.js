'use strict';

const { coerce, typeNames } = require('../lib/coerce');
const { EnvTypeError } = require('../lib/errors');

describe('coerce', () => {
  test('converts numbers and integers', () => {
    expect(coerce('42', { type: 'number' }, 'N')).toBe(42);
    expect(coerce('-1.5', { type: 'number' }, 'N')).toBe(-1.5);
    expect(coerce('7', { type: 'integer' }, 'N')).toBe(7);
    expect(() => coerce('7.5', { type: 'integer' }, 'N')).toThrow(EnvTypeError);
    expect(() => coerce('  ', { type: 'number' }, 'N')).toThrow(EnvTypeError);
  });

  test('understands boolean words', () => {
    for (const word of ['true', 'YES', 'on', '1']) expect(coerce(word, { type: 'boolean' }, 'B')).toBe(true);
    for (const word of ['false', 'No', 'off', '0']) expect(coerce(word, { type: 'boolean' }, 'B')).toBe(false);
    expect(() => coerce('maybe', { type: 'boolean' }, 'B')).toThrow(/expected a boolean/);
  });

  test('checks the range of ports', () => {
    expect(coerce('8080', { type: 'port' }, 'PORT')).toBe(8080);
    expect(() => coerce('70000', { type: 'port' }, 'PORT')).toThrow('PORT: expected a port number (0-65535), got "70000"');
  });

  test('normalises URLs and rejects relative ones', () => {
    expect(coerce('HTTP://Example.test', { type: 'url' }, 'U')).toBe('http://example.test/');
    expect(() => coerce('/relative/path', { type: 'url' }, 'U')).toThrow(EnvTypeError);
  });

  test('splits lists on the separator', () => {
    expect(coerce(' a, b ,,c ', { type: 'list' }, 'L')).toEqual(['a', 'b', 'c']);
    expect(coerce('a:b', { type: 'list', separator: ':' }, 'L')).toEqual(['a', 'b']);
  });

  test('parses JSON and durations', () => {
    expect(coerce('{"a":[1,2]}', { type: 'json' }, 'J')).toEqual({ a: [1, 2] });
    expect(coerce('1500', { type: 'duration' }, 'D')).toBe(1500);
    expect(coerce('30s', { type: 'duration' }, 'D')).toBe(30000);
    expect(coerce('1.5h', { type: 'duration' }, 'D')).toBe(5400000);
    expect(() => coerce('soon', { type: 'duration' }, 'D')).toThrow(EnvTypeError);
  });

  test('describes the failing variable on the error', () => {
    let caught;
    try {
      coerce('abc', { type: 'integer' }, 'WORKERS');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(EnvTypeError);
    expect(caught).toMatchObject({ key: 'WORKERS', type: 'integer', value: 'abc', name: 'EnvTypeError' });
  });

  test('lists the built-in types', () => {
    expect(typeNames()).toEqual(
      expect.arrayContaining(['string', 'number', 'integer', 'boolean', 'port', 'url', 'json', 'list', 'duration']),
    );
  });
});
