/** Kinds of value an option can hold. */
export type OptionType = 'string' | 'number' | 'boolean';

export type ScalarValue = string | number | boolean;

/** The value stored for an option: a scalar, or an array for `multiple` options. */
export type OptionValue = ScalarValue | Array<string | number>;

export interface OptionConfig {
  /** Value type. Default `'string'`. Boolean options never take a value from argv. */
  type?: OptionType;
  /** Single-letter alias, without the dash: `short: 'o'` allows `-o`. */
  short?: string;
  /** One line for the help text. */
  description?: string;
  /** Value used when the option is not given. */
  default?: ScalarValue | Array<string | number>;
  /** Fail when the option is not given and has no default. */
  required?: boolean;
  /** Allow the option several times; the value becomes an array. */
  multiple?: boolean;
  /** Restrict string values to these choices. */
  choices?: readonly string[];
  /** Placeholder for the value in the help text. Default: the upper-cased name. */
  valueName?: string;
}

export interface OptionSpec extends OptionConfig {
  /** Long name, without the dashes: `name: 'dry-run'` allows `--dry-run`. */
  readonly name: string;
  readonly type: OptionType;
}

export interface PositionalConfig {
  description?: string;
  /** Default `true`. Optional positionals must come after required ones. */
  required?: boolean;
  /** Collects every remaining argument; only the last positional may be variadic. */
  variadic?: boolean;
}

export interface PositionalSpec extends PositionalConfig {
  readonly name: string;
}

export interface ParseResult {
  /** Option values keyed by long name. Options that were not given and have no default are absent. */
  options: Record<string, OptionValue>;
  /** Positional values keyed by name; variadic positionals hold an array. */
  positionals: Record<string, string | string[]>;
  /** Arguments after `--` that no positional consumed. */
  rest: string[];
}
