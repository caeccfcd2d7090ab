import { tokenize } from '../src';

describe('tokenize', () => {
  it('reads long options with and without values', () => {
    expect(tokenize(['--verbose', '--out=dist', '--eq=a=b', '--empty='])).toEqual([
      { kind: 'long', name: 'verbose', value: undefined, index: 0 },
      { kind: 'long', name: 'out', value: 'dist', index: 1 },
      { kind: 'long', name: 'eq', value: 'a=b', index: 2 },
      { kind: 'long', name: 'empty', value: '', index: 3 },
    ]);
  });

  it('reads short option clusters', () => {
    expect(tokenize(['-v', '-xzf', '-ofile.txt'])).toEqual([
      { kind: 'short', letters: 'v', index: 0 },
      { kind: 'short', letters: 'xzf', index: 1 },
      { kind: 'short', letters: 'ofile.txt', index: 2 },
    ]);
  });

  it('treats a lone dash as a value', () => {
    expect(tokenize(['-'])).toEqual([{ kind: 'value', value: '-', literal: false, index: 0 }]);
  });

  it('makes everything after -- a literal value', () => {
    expect(tokenize(['a', '--', '--not-an-option', '-x'])).toEqual([
      { kind: 'value', value: 'a', literal: false, index: 0 },
      { kind: 'value', value: '--not-an-option', literal: true, index: 2 },
      { kind: 'value', value: '-x', literal: true, index: 3 },
    ]);
  });
});
