'use strict';

const fs = require('fs');

const { parse, parseEntries, stringify } = require('./parse');
const { expand } = require('./expand');
const { coerce, typeNames } = require('./coerce');
const { Schema } = require('./schema');
const { renderExample } = require('./example');
const errors = require('./errors');

/**
 * Read one or more .env files (later files win), expand `${VAR}` references
 * and, when a schema is given, validate and type the result.
 *
 * Options:
 * - `path`: a file name or a list of them (default `.env`); missing files are
 *   skipped unless `strict` is true;
 * - `env`: the real environment (default `process.env`); its values win over
 *   the files unless `override` is true;
 * - `expand`: set to false to keep `${VAR}` references as written;
 * - `schema`: a `Schema` or a schema definition object.
 *
 * Without a schema, returns the variables defined by the files as strings.
 */
function load(options = {}) {
  const paths = [].concat(options.path === undefined ? '.env' : options.path);
  const env = options.env || process.env;

  const fromFiles = {};
  const literal = new Set();
  for (const path of paths) {
    let text;
    try {
      text = fs.readFileSync(path, options.encoding || 'utf8');
    } catch (error) {
      if (error.code === 'ENOENT' && !options.strict) continue;
      throw error;
    }
    for (const entry of parseEntries(text)) {
      fromFiles[entry.key] = entry.value;
      if (entry.quote === "'") literal.add(entry.key);
      else literal.delete(entry.key);
    }
  }

  // The real environment wins (unless `override`); references see the winning value.
  const effective = {};
  for (const [key, value] of Object.entries(fromFiles)) {
    if (!options.override && Object.prototype.hasOwnProperty.call(env, key)) {
      effective[key] = env[key];
      literal.add(key);
    } else {
      effective[key] = value;
    }
  }
  const variables = options.expand === false ? effective : expand(effective, { env, literal });

  if (!options.schema) return variables;
  const schema = options.schema instanceof Schema ? options.schema : new Schema(options.schema);
  return schema.validate({ ...env, ...variables });
}

/** Copy `variables` into `target` (default `process.env`), keeping existing values unless `override`. */
function populate(variables, options = {}) {
  const target = options.target || process.env;
  const written = [];
  for (const [key, value] of Object.entries(variables)) {
    if (!options.override && Object.prototype.hasOwnProperty.call(target, key)) continue;
    target[key] = String(value);
    written.push(key);
  }
  return written;
}

module.exports = {
  load,
  populate,
  parse,
  parseEntries,
  stringify,
  expand,
  coerce,
  typeNames,
  Schema,
  renderExample,
  ...errors,
};
