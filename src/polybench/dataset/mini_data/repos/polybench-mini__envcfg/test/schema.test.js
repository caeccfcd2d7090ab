'use strict';

const { Schema } = require('../lib/schema');
const { EnvValidationError, MissingVariableError, EnvTypeError } = require('../lib/errors');

describe('Schema', () => {
  test('types every declared variable', () => {
    const schema = new Schema({ PORT: 'port', DEBUG: { type: 'boolean', default: false }, NAME: {} });
    expect(schema.validate({ PORT: '80', NAME: 'api', OTHER: 'ignored' })).toEqual({
      PORT: 80,
      DEBUG: false,
      NAME: 'api',
    });
  });

  test('returns a frozen object', () => {
    const config = new Schema({ A: { default: 'x' } }).validate({});
    expect(Object.isFrozen(config)).toBe(true);
  });

  test('treats an empty string as missing unless allowEmpty', () => {
    const schema = new Schema({ A: { default: 'fallback' }, B: { allowEmpty: true } });
    expect(schema.validate({ A: '', B: '' })).toEqual({ A: 'fallback', B: '' });
  });

  test('leaves optional variables without default undefined', () => {
    const config = new Schema({ TOKEN: { required: false } }).validate({});
    expect(config).toHaveProperty('TOKEN', undefined);
  });

  test('collects every problem into one error', () => {
    const schema = new Schema({
      DATABASE_URL: { type: 'url', description: 'Primary database' },
      PORT: 'port',
      WORKERS: { type: 'integer', default: 2 },
    });
    let caught;
    try {
      schema.validate({ PORT: '80a', WORKERS: 'many' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(EnvValidationError);
    expect(caught.errors).toHaveLength(3);
    expect(caught.errors[0]).toBeInstanceOf(MissingVariableError);
    expect(caught.errors[1]).toBeInstanceOf(EnvTypeError);
    expect(caught.message).toContain('DATABASE_URL is required (Primary database)');
    expect(caught.message).toContain('WORKERS: expected an integer, got "many"');
  });

  test('rejects unknown types and options', () => {
    expect(() => new Schema({ A: 'float' })).toThrow(/unknown type "float"/);
    expect(() => new Schema({ A: { type: 'string', defualt: 'x' } })).toThrow(/unknown option "defualt"/);
    expect(() => new Schema({ A: 42 })).toThrow(TypeError);
  });

  test('refuses a default on a required variable', () => {
    expect(() => new Schema({ A: { required: true, default: 'x' } })).toThrow(/cannot have a default/);
  });

  test('extends a schema without changing it', () => {
    const base = new Schema({ A: 'string' });
    const extended = base.extend({ B: { type: 'integer', default: 1 } });
    expect(base.keys()).toEqual(['A']);
    expect(extended.keys()).toEqual(['A', 'B']);
    expect(extended.get('B')).toMatchObject({ type: 'integer', default: 1, required: false });
  });
});
