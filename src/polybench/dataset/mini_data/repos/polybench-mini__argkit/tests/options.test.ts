import { ArgError, ArgParser } from '../src';

function build(): ArgParser {
  return new ArgParser('deploy', 'Deploy the current build')
    .option('env', { short: 'e', choices: ['staging', 'production'], required: true })
    .option('replicas', { type: 'number', short: 'n', default: 1 })
    .option('dry-run', { type: 'boolean', short: 'd' })
    .option('verbose', { type: 'boolean', short: 'v' })
    .option('tag', { short: 't', multiple: true })
    .option('timeout', { type: 'number' });
}

function errorOf(run: () => unknown): ArgError {
  try {
    run();
  } catch (error) {
    if (error instanceof ArgError) {
      return error;
    }
    throw error;
  }
  throw new Error('expected an ArgError');
}

describe('long options', () => {
  it('reads values given with = or as the next argument', () => {
    const { options } = build().parse(['--env=staging', '--replicas', '3']);
    expect(options).toEqual({ env: 'staging', replicas: 3 });
  });

  it('keeps an empty value given with =', () => {
    const parser = new ArgParser('x').option('prefix');
    expect(parser.parse(['--prefix=']).options).toEqual({ prefix: '' });
  });

  it('sets boolean options and their --no- form', () => {
    expect(build().parse(['-e', 'staging', '--dry-run']).options['dry-run']).toBe(true);
    expect(build().parse(['-e', 'staging', '--no-dry-run']).options['dry-run']).toBe(false);
    expect(build().parse(['-e', 'staging', '--verbose=off']).options.verbose).toBe(false);
  });

  it('collects repeatable options', () => {
    const { options } = build().parse(['-e', 'staging', '--tag', 'a', '-t', 'b', '--tag=c']);
    expect(options.tag).toEqual(['a', 'b', 'c']);
  });
});

describe('short options', () => {
  it('expands clusters of boolean flags', () => {
    const { options } = build().parse(['-dv', '-e', 'production']);
    expect(options).toMatchObject({ 'dry-run': true, verbose: true, env: 'production' });
  });

  it('reads a value attached to the last letter', () => {
    expect(build().parse(['-estaging', '-vn4']).options).toMatchObject({
      env: 'staging',
      verbose: true,
      replicas: 4,
    });
  });
});

describe('defaults', () => {
  it('fills in defaults for missing options', () => {
    expect(build().parse(['-e', 'staging']).options).toEqual({ env: 'staging', replicas: 1 });
  });
});

describe('errors', () => {
  it('rejects unknown options', () => {
    const error = errorOf(() => build().parse(['-e', 'staging', '--force']));
    expect(error.code).toBe('unknown_option');
    expect(error.subject).toBe('--force');
    expect(errorOf(() => build().parse(['-x'])).message).toBe('Unknown option -x');
  });

  it('requires a value for non-boolean options', () => {
    expect(errorOf(() => build().parse(['--env'])).code).toBe('missing_value');
    expect(errorOf(() => build().parse(['--env', '--verbose'])).message).toBe(
      'Option --env requires a value',
    );
  });

  it('rejects values that do not convert', () => {
    expect(errorOf(() => build().parse(['-e', 'staging', '-n', 'many'])).code).toBe(
      'invalid_value',
    );
    expect(errorOf(() => build().parse(['--env', 'qa'])).code).toBe('invalid_choice');
  });

  it('rejects a missing required option', () => {
    const error = errorOf(() => build().parse([]));
    expect(error.code).toBe('missing_option');
    expect(error.message).toBe('Missing required option --env');
  });

  it('rejects a single-valued option given twice', () => {
    expect(errorOf(() => build().parse(['-e', 'staging', '-e', 'production'])).code).toBe(
      'repeated_option',
    );
  });

  it('rejects invalid declarations', () => {
    expect(() => new ArgParser('x').option('bad name')).toThrow(/Invalid option name/);
    expect(() => new ArgParser('x').option('a', { short: 'ab' })).toThrow(/Invalid short name/);
    expect(() => build().option('verbose')).toThrow(/clashes/);
  });
});
