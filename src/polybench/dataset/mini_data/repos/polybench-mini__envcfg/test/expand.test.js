'use strict';

const { expand } = require('../lib/expand');
const { ExpansionError, MissingVariableError } = require('../lib/errors');

describe('expand', () => {
  test('replaces braced and bare references in any order', () => {
    const result = expand({ URL: 'http://${HOST}:$PORT/', HOST: 'example.test', PORT: '8080' });
    expect(result.URL).toBe('http://example.test:8080/');
  });

  test('falls back to the environment', () => {
    expect(expand({ HOME_DIR: '${HOME}/app' }, { env: { HOME: '/home/me' } })).toEqual({ HOME_DIR: '/home/me/app' });
  });

  test('lets a variable extend its outer value', () => {
    const result = expand({ PATH: '${PATH}:/opt/bin' }, { env: { PATH: '/usr/bin' } });
    expect(result.PATH).toBe('/usr/bin:/opt/bin');
  });

  test('applies default operators', () => {
    const result = expand(
      { A: '${UNSET:-fallback}', B: '${EMPTY:-fallback}', C: '${EMPTY-fallback}', D: '${UNSET-x$EMPTY}' },
      { env: { EMPTY: '' } },
    );
    expect(result).toEqual({ A: 'fallback', B: 'fallback', C: '', D: 'x' });
  });

  test('fails on ${NAME:?message} when unset', () => {
    expect(() => expand({ A: '${SECRET:?SECRET must be set}' })).toThrow(MissingVariableError);
    expect(() => expand({ A: '${SECRET:?SECRET must be set}' })).toThrow('SECRET must be set');
  });

  test('keeps escaped dollars and literal variables', () => {
    const result = expand({ PRICE: '\\$5', RAW: '${PRICE}' }, { literal: ['RAW'] });
    expect(result).toEqual({ PRICE: '$5', RAW: '${PRICE}' });
  });

  test('detects circular references', () => {
    expect(() => expand({ A: '${B}', B: '${A}' })).toThrow(ExpansionError);
    try {
      expand({ A: '${B}', B: '${A}' });
    } catch (error) {
      expect(error.chain).toEqual(['A', 'B', 'A']);
    }
  });
});
