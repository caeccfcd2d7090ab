'use strict';

const { parse, parseEntries, stringify } = require('../lib/parse');
const { EnvParseError } = require('../lib/errors');

describe('parse', () => {
  test('reads KEY=value pairs and skips comments and blank lines', () => {
    const text = '# settings\n\nNAME=envcfg\n  # indented comment\nVERSION = 1.4.0\n';
    expect(parse(text)).toEqual({ NAME: 'envcfg', VERSION: '1.4.0' });
  });

  test('accepts an export prefix and Windows line endings', () => {
    expect(parse('export A=1\r\nexport B=2\r\n')).toEqual({ A: '1', B: '2' });
  });

  test('strips an inline comment after a bare value', () => {
    expect(parse('LEVEL=debug # noisy\n')).toEqual({ LEVEL: 'debug' });
  });

  test('keeps a hash that is part of a bare value', () => {
    expect(parse('COLOR=#ff0000\nANCHOR=page#top\n')).toEqual({ COLOR: '#ff0000', ANCHOR: 'page#top' });
  });

  test('resolves escapes in double quotes only', () => {
    const values = parse('A="one\\ntwo"\nB=\'one\\ntwo\'\nC="say \\"hi\\""\n');
    expect(values.A).toBe('one\ntwo');
    expect(values.B).toBe('one\\ntwo');
    expect(values.C).toBe('say "hi"');
  });

  test('reads a quoted value spanning several lines', () => {
    const text = 'KEY="-----BEGIN-----\nabc\n-----END-----"\nNEXT=1\n';
    expect(parse(text)).toEqual({ KEY: '-----BEGIN-----\nabc\n-----END-----', NEXT: '1' });
  });

  test('lets a later definition win', () => {
    expect(parse('A=1\nA=2\n')).toEqual({ A: '2' });
  });

  test('reports the line of a malformed assignment', () => {
    expect(() => parse('A=1\nnot an assignment\n')).toThrow(EnvParseError);
    try {
      parse('A=1\nnot an assignment\n');
    } catch (error) {
      expect(error.line).toBe(2);
    }
  });

  test('rejects an unterminated quote', () => {
    expect(() => parse('A="open\nB=2\n')).toThrow(/unterminated/);
  });
});

describe('parseEntries', () => {
  test('records the quote and line of every entry', () => {
    const entries = parseEntries("# c\nA='x'\nB=\"y\"\nC=z\n");
    expect(entries).toEqual([
      { key: 'A', value: 'x', quote: "'", line: 2 },
      { key: 'B', value: 'y', quote: '"', line: 3 },
      { key: 'C', value: 'z', quote: null, line: 4 },
    ]);
  });
});

describe('stringify', () => {
  test('quotes only the values that need it', () => {
    expect(stringify({ A: 'plain', B: 'two words', C: 'line\nbreak', D: '' })).toBe(
      'A=plain\nB="two words"\nC="line\\nbreak"\nD=\n',
    );
  });

  test('round-trips through parse', () => {
    const values = { A: 'x y', B: 'quote " and \\ slash', C: 'tab\there' };
    expect(parse(stringify(values))).toEqual(values);
  });

  test('refuses an invalid variable name', () => {
    expect(() => stringify({ 'BAD NAME': 'x' })).toThrow(TypeError);
  });
});
