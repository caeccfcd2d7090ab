/**
 * Regular expressions that decide how a command-line argument is read. Kept in one place
 * so that the tokenizer, the parser and the option validation agree.
 */

/** `--name` or `--name=value` (the value may be empty or contain `=`). */
export const LONG_OPTION = /^--([A-Za-z][A-Za-z0-9_-]*)(?:=([\s\S]*))?$/;

/** `no-name`: the negated form of the boolean option `name`. */
export const NEGATED_NAME = /^no-(.+)$/;

/** A valid long option name. */
export const OPTION_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** A valid short option name: one ASCII letter. */
export const SHORT_NAME = /^[A-Za-z]$/;

/** The argument after which everything is positional. */
export const END_OF_OPTIONS = '--';
