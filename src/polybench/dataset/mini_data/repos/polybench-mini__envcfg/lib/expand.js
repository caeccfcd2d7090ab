'use strict';

const { ExpansionError, MissingVariableError } = require('./errors');

// `\$` (an escaped dollar), `${NAME}`, `${NAME:-fallback}`, `${NAME-fallback}`,
// `${NAME:?message}`, `${NAME?message}` and bare `$NAME`.
const REFERENCE = /\\\$|\$\{([A-Za-z_][A-Za-z0-9_.]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

const has = (object, key) => Object.prototype.hasOwnProperty.call(object, key);

/**
 * Replace variable references in the values of `variables`.
 *
 * References are looked up in `variables` first (expanded in turn, so
 * definitions may come in any order) and then in `options.env`. A variable
 * that refers to itself (`PATH=${PATH}:/opt/bin`) reads the outer value from
 * `options.env`. Names listed in `options.literal` are copied unchanged
 * (single-quoted values in a .env file). Returns a new object.
 */
function expand(variables, options = {}) {
  const env = options.env || {};
  const literal = new Set(options.literal || []);
  const resolved = new Map();
  const resolving = [];

  function lookup(name) {
    if (has(variables, name) && !(resolving.includes(name) && has(env, name))) {
      return resolve(name);
    }
    return has(env, name) ? String(env[name]) : undefined;
  }

  function substitute(text) {
    return text.replace(REFERENCE, (match, braced, operator, operand, bare) => {
      if (match === '\\$') return '$';
      const name = braced || bare;
      const value = lookup(name);
      if (!operator) return value === undefined ? '' : value;

      const missing = operator.startsWith(':') ? value === undefined || value === '' : value === undefined;
      if (!missing) return value;
      if (operator.endsWith('-')) return substitute(operand);
      throw new MissingVariableError(operand || `${name} is not set`, { key: name });
    });
  }

  function resolve(name) {
    if (resolved.has(name)) return resolved.get(name);
    if (resolving.includes(name)) {
      const chain = [...resolving.slice(resolving.indexOf(name)), name];
      throw new ExpansionError(`circular reference: ${chain.join(' -> ')}`, { chain });
    }
    resolving.push(name);
    const raw = variables[name] === undefined || variables[name] === null ? '' : String(variables[name]);
    const value = literal.has(name) ? raw : substitute(raw);
    resolving.pop();
    resolved.set(name, value);
    return value;
  }

  const result = {};
  for (const name of Object.keys(variables)) result[name] = resolve(name);
  return result;
}

module.exports = { expand };
