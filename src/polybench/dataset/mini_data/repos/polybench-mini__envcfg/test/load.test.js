'use strict';

const path = require('path');
const envcfg = require('../lib');

const fixture = (name) => path.join(__dirname, 'fixtures', name);

describe('load', () => {
  test('reads and expands a file', () => {
    const variables = envcfg.load({ path: fixture('app.env'), env: {} });
    expect(variables.DATABASE_URL).toBe('postgres://db.internal:5432/app');
    expect(variables.RAW).toBe('${NOT_EXPANDED}');
  });

  test('lets later files and the real environment win', () => {
    const variables = envcfg.load({
      path: [fixture('app.env'), fixture('local.env')],
      env: { HOST: 'override.internal' },
    });
    expect(variables.PORT).toBe('6543');
    expect(variables.HOST).toBe('override.internal');
    expect(variables.DATABASE_URL).toBe('postgres://override.internal:6543/app');
  });

  test('skips missing files unless strict', () => {
    expect(envcfg.load({ path: fixture('missing.env'), env: {} })).toEqual({});
    expect(() => envcfg.load({ path: fixture('missing.env'), env: {}, strict: true })).toThrow(/ENOENT/);
  });

  test('validates against a schema', () => {
    const config = envcfg.load({
      path: fixture('app.env'),
      env: { EXTRA: '1' },
      schema: {
        PORT: 'port',
        FEATURES: 'list',
        TIMEOUT: 'duration',
        EXTRA: 'boolean',
        DEBUG: { type: 'boolean', default: false },
      },
    });
    expect(config).toEqual({ PORT: 5432, FEATURES: ['search', 'export', 'beta'], TIMEOUT: 30000, EXTRA: true, DEBUG: false });
  });

  test('populates a target without overriding', () => {
    const target = { KEEP: 'me' };
    const written = envcfg.populate({ KEEP: 'other', NEW: 1 }, { target });
    expect(written).toEqual(['NEW']);
    expect(target).toEqual({ KEEP: 'me', NEW: '1' });
  });

  test('exports the error classes', () => {
    expect(new envcfg.EnvTypeError('x')).toBeInstanceOf(envcfg.EnvError);
    expect(new envcfg.EnvValidationError([]).errors).toEqual([]);
  });
});
