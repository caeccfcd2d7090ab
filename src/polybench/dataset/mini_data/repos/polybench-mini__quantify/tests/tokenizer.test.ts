import { describe, expect, it } from 'vitest';
import { ParseError, Tokenizer, tokenize } from '../src/index.js';

describe('tokenize', () => {
  it('splits numbers and units written together', () => {
    expect(tokenize('1h30m').map((token) => token.text)).toEqual(['1', 'h', '30', 'm']);
  });

  it('skips whitespace and commas', () => {
    expect(tokenize(' 2 days,\t4 hours ').map((token) => token.text)).toEqual([
      '2',
      'days',
      '4',
      'hours',
    ]);
  });

  it('reads decimal numbers and digit separators', () => {
    const [a, b, c] = tokenize('1.5 .25 10_000');
    expect(a).toMatchObject({ kind: 'number', value: 1.5 });
    expect(b).toMatchObject({ kind: 'number', value: 0.25 });
    expect(c).toMatchObject({ kind: 'number', value: 10000, text: '10_000' });
  });

  it('records the offset of every token', () => {
    expect(tokenize('12 min').map((token) => token.offset)).toEqual([0, 3]);
  });

  it('rejects characters that cannot start a token', () => {
    expect(() => tokenize('5 % 3')).toThrow(ParseError);
    expect(() => tokenize('5 % 3')).toThrow(/Unexpected character "%" at offset 2/);
  });

  it('rejects misplaced digit separators', () => {
    expect(() => tokenize('1__000ms')).toThrow(/digit separator/);
  });
});

describe('Tokenizer', () => {
  it('peek does not consume the token', () => {
    const tokens = new Tokenizer('3 weeks');
    expect(tokens.peek()).toMatchObject({ kind: 'number', value: 3 });
    expect(tokens.next()).toMatchObject({ kind: 'number', value: 3 });
    expect(tokens.next()).toMatchObject({ kind: 'word', text: 'weeks' });
    expect(tokens.next()).toBeNull();
  });

  it('reports the offset of the pending token', () => {
    const tokens = new Tokenizer('  7d');
    tokens.peek();
    expect(tokens.offset).toBe(2);
  });
});
