import { ArgError, ArgParser } from '../src';

describe('positionals', () => {
  const copy = () =>
    new ArgParser('copy')
      .option('force', { type: 'boolean', short: 'f' })
      .positional('source')
      .positional('target', { required: false });

  it('assigns arguments in order, around options', () => {
    expect(copy().parse(['a.txt', '-f', 'b.txt'])).toEqual({
      options: { force: true },
      positionals: { source: 'a.txt', target: 'b.txt' },
      rest: [],
    });
  });

  it('leaves optional positionals out when missing', () => {
    expect(copy().parse(['a.txt']).positionals).toEqual({ source: 'a.txt' });
  });

  it('reports missing and unexpected arguments', () => {
    expect(() => copy().parse([])).toThrow(new ArgError('missing_argument', 'Missing argument <source>'));
    expect(() => copy().parse(['a', 'b', 'c'])).toThrow('Unexpected argument "c"');
  });

  it('collects variadic positionals', () => {
    const parser = new ArgParser('cat').positional('files', { variadic: true });
    expect(parser.parse(['a', 'b', 'c']).positionals).toEqual({ files: ['a', 'b', 'c'] });
    expect(() => parser.parse([])).toThrow('Missing argument <files>');
  });

  it('treats arguments after -- as values and keeps the leftovers in rest', () => {
    const result = copy().parse(['--', '-f', 'x', '--y', 'z']);
    expect(result.options).toEqual({});
    expect(result.positionals).toEqual({ source: '-f', target: 'x' });
    expect(result.rest).toEqual(['--y', 'z']);
  });

  it('rejects positionals declared in an impossible order', () => {
    expect(() =>
      new ArgParser('x').positional('a', { variadic: true }).positional('b'),
    ).toThrow(/follows variadic/);
    expect(() =>
      new ArgParser('x').positional('a', { required: false }).positional('b'),
    ).toThrow(/follows optional/);
  });
});
