'use strict';

/**
 * Base class of every error thrown by envcfg.
 *
 * Extra details (the variable name, the line number, ...) are copied onto the
 * error so that callers can inspect them without parsing the message.
 */
class EnvError extends Error {
  constructor(message, details = {}) {
    super(message);
    this.name = new.target.name;
    for (const [field, value] of Object.entries(details)) {
      if (value !== undefined) this[field] = value;
    }
  }
}

/** The text of a .env file could not be parsed. Carries `line`. */
class EnvParseError extends EnvError {}

/** A value could not be converted to the declared type. Carries `key`, `type`, `value`. */
class EnvTypeError extends EnvError {}

/** A required variable is not set anywhere. Carries `key`. */
class MissingVariableError extends EnvError {}

/** `${VAR}` references form a cycle. Carries `chain`. */
class ExpansionError extends EnvError {}

/**
 * Thrown by `Schema#validate` when one or more variables are invalid: every
 * problem is collected in `errors` so that they can all be fixed at once.
 */
class EnvValidationError extends EnvError {
  constructor(errors) {
    const lines = errors.map((error) => `  - ${error.message}`);
    super(`invalid environment:\n${lines.join('\n')}`, { errors });
  }
}

module.exports = {
  EnvError,
  EnvParseError,
  EnvTypeError,
  MissingVariableError,
  ExpansionError,
  EnvValidationError,
};
