'use strict';

const { coerce, typeNames } = require('./coerce');
const { EnvError, EnvValidationError, MissingVariableError } = require('./errors');

const KNOWN_OPTIONS = new Set(['type', 'default', 'required', 'description', 'sensitive', 'separator', 'allowEmpty']);

/**
 * A declaration of the variables an application reads, with their types.
 *
 *     const schema = new Schema({
 *       PORT: { type: 'port', default: 3000 },
 *       DATABASE_URL: { type: 'url', description: 'Primary database' },
 *       DEBUG: 'boolean',
 *     });
 *     const config = schema.validate(process.env);
 */
class Schema {
  constructor(definition) {
    if (definition === null || typeof definition !== 'object' || Array.isArray(definition)) {
      throw new TypeError('a schema is defined by an object of variable specs');
    }
    this.entries = new Map();
    for (const [key, entry] of Object.entries(definition)) {
      this.entries.set(key, this._normalize(key, entry));
    }
  }

  /** Check one variable spec and fill in its defaults. */
  _normalize(key, entry) {
    if (typeof entry !== 'string' && (entry === null || typeof entry !== 'object' || Array.isArray(entry))) {
      throw new TypeError(`${key}: a spec is a type name or an object`);
    }
    const spec = typeof entry === 'string' ? { type: entry } : { ...entry };
    for (const option of Object.keys(spec)) {
      if (!KNOWN_OPTIONS.has(option)) throw new TypeError(`${key}: unknown option ${JSON.stringify(option)}`);
    }
    if (spec.type === undefined) spec.type = 'string';
    if (!typeNames().includes(spec.type)) {
      throw new TypeError(`${key}: unknown type ${JSON.stringify(spec.type)} (known: ${typeNames().join(', ')})`);
    }
    if (spec.required === undefined) spec.required = spec.default === undefined;
    if (spec.required && spec.default !== undefined) {
      throw new TypeError(`${key}: a required variable cannot have a default`);
    }
    spec.sensitive = Boolean(spec.sensitive);
    spec.allowEmpty = Boolean(spec.allowEmpty);
    return Object.freeze(spec);
  }

  /** The declared variable names, in declaration order. */
  keys() {
    return [...this.entries.keys()];
  }

  /** The normalised spec of `key`, or `undefined`. */
  get(key) {
    return this.entries.get(key);
  }

  /** A new schema with the variables of this one plus (or replaced by) `definition`. */
  extend(definition) {
    const merged = {};
    for (const [key, spec] of this.entries) merged[key] = { ...spec };
    return new Schema(Object.assign(merged, definition));
  }

  /**
   * Read every declared variable from `source` (an object of strings such as
   * `process.env`) and return a frozen object of typed values. All problems
   * are reported together in one `EnvValidationError`.
   */
  validate(source = {}) {
    const config = {};
    const errors = [];
    for (const [key, spec] of this.entries) {
      const raw = Object.prototype.hasOwnProperty.call(source, key) ? source[key] : undefined;
      if (raw === undefined || raw === null || (raw === '' && !spec.allowEmpty)) {
        if (spec.default !== undefined) {
          config[key] = spec.default;
        } else if (spec.required) {
          const why = spec.description ? ` (${spec.description})` : '';
          errors.push(new MissingVariableError(`${key} is required${why}`, { key }));
        } else {
          config[key] = undefined;
        }
        continue;
      }
      try {
        config[key] = coerce(raw, spec, key);
      } catch (error) {
        if (!(error instanceof EnvError)) throw error;
        errors.push(error);
      }
    }
    if (errors.length > 0) throw new EnvValidationError(errors);
    return Object.freeze(config);
  }
}

module.exports = { Schema };
