import { toBoolean, toNumber } from './coerce';
import { ArgError } from './errors';
import { formatHelp } from './help';
import { NEGATED_NAME, OPTION_NAME, SHORT_NAME } from './patterns';
import { tokenize, type Token } from './tokenize';
import type {
  OptionConfig,
  OptionSpec,
  OptionValue,
  ParseResult,
  PositionalConfig,
  PositionalSpec,
  ScalarValue,
} from './types';

/**
 * Declares the options and positionals of a command, then parses argv against them.
 *
 * ```ts
 * const cli = new ArgParser('resize', 'Resize images')
 *   .option('width', { type: 'number', short: 'w', required: true })
 *   .option('verbose', { type: 'boolean', short: 'v' })
 *   .positional('files', { variadic: true });
 * const { options, positionals } = cli.parse(process.argv.slice(2));
 * ```
 */
export class ArgParser {
  private readonly optionSpecs: OptionSpec[] = [];
  private readonly positionalSpecs: PositionalSpec[] = [];

  constructor(
    readonly program: string,
    readonly description = '',
  ) {}

  /** Declares `--name` (and `-x` when `config.short` is set). */
  option(name: string, config: OptionConfig = {}): this {
    if (!OPTION_NAME.test(name)) {
      throw new ArgError('invalid_spec', `Invalid option name "${name}"`, name);
    }
    if (config.short !== undefined && !SHORT_NAME.test(config.short)) {
      throw new ArgError('invalid_spec', `Invalid short name "${config.short}" for --${name}`, name);
    }
    for (const existing of this.optionSpecs) {
      if (existing.name === name || (config.short !== undefined && existing.short === config.short)) {
        throw new ArgError('invalid_spec', `Option --${name} clashes with --${existing.name}`, name);
      }
    }
    const type = config.type ?? 'string';
    if (config.choices !== undefined && type !== 'string') {
      throw new ArgError('invalid_spec', `Only string options can have choices (--${name})`, name);
    }
    this.optionSpecs.push({ ...config, name, type });
    return this;
  }

  /** Declares the next positional argument. */
  positional(name: string, config: PositionalConfig = {}): this {
    const last = this.positionalSpecs[this.positionalSpecs.length - 1];
    if (last?.variadic) {
      throw new ArgError('invalid_spec', `Positional "${name}" follows variadic "${last.name}"`, name);
    }
    const required = config.required ?? true;
    if (required && last !== undefined && last.required === false) {
      throw new ArgError(
        'invalid_spec',
        `Required positional "${name}" follows optional "${last.name}"`,
        name,
      );
    }
    this.positionalSpecs.push({ ...config, name, required });
    return this;
  }

  get options(): readonly OptionSpec[] {
    return this.optionSpecs;
  }

  get positionals(): readonly PositionalSpec[] {
    return this.positionalSpecs;
  }

  /** Usage text for `--help`. */
  help(): string {
    return formatHelp(this);
  }

  /**
   * Parses `argv` (without the node executable and script path).
   *
   * @throws {ArgError} when the arguments do not match the declarations.
   */
  parse(argv: readonly string[]): ParseResult {
    const tokens = tokenize(argv);
    const options: Record<string, OptionValue> = {};
    const values: string[] = [];
    const literals: string[] = [];

    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!;
      if (token.kind === 'long') {
        i = this.readLong(token, tokens, i, options);
      } else if (token.kind === 'short') {
        i = this.readShort(token, tokens, i, options);
      } else if (token.literal) {
        literals.push(token.value);
      } else {
        values.push(token.value);
      }
    }

    this.applyDefaults(options);
    const { positionals, rest } = this.assignPositionals(values, literals);
    return { options, positionals, rest };
  }

  private readLong(
    token: Extract<Token, { kind: 'long' }>,
    tokens: readonly Token[],
    i: number,
    options: Record<string, OptionValue>,
  ): number {
    let spec = this.optionSpecs.find((candidate) => candidate.name === token.name);
    if (spec === undefined) {
      const negated = NEGATED_NAME.exec(token.name);
      spec = negated ? this.optionSpecs.find((candidate) => candidate.name === negated[1]) : undefined;
      if (spec === undefined || spec.type !== 'boolean') {
        throw new ArgError('unknown_option', `Unknown option --${token.name}`, `--${token.name}`);
      }
      if (token.value !== undefined) {
        throw new ArgError(
          'unexpected_value',
          `Option --${token.name} does not take a value`,
          `--${token.name}`,
        );
      }
      this.store(options, spec, false);
      return i;
    }

    if (spec.type === 'boolean') {
      const value = token.value === undefined ? true : toBoolean(token.value);
      if (value === undefined) {
        throw new ArgError(
          'invalid_value',
          `Option --${spec.name} expects true or false, got "${token.value}"`,
          `--${spec.name}`,
        );
      }
      this.store(options, spec, value);
      return i;
    }

    if (token.value !== undefined) {
      this.store(options, spec, this.convert(spec, token.value));
      return i;
    }
    const next = tokens[i + 1];
    if (next === undefined || next.kind !== 'value' || next.literal) {
      throw new ArgError('missing_value', `Option --${spec.name} requires a value`, `--${spec.name}`);
    }
    this.store(options, spec, this.convert(spec, next.value));
    return i + 1;
  }

  private readShort(
    token: Extract<Token, { kind: 'short' }>,
    tokens: readonly Token[],
    i: number,
    options: Record<string, OptionValue>,
  ): number {
    for (let position = 0; position < token.letters.length; position++) {
      const letter = token.letters[position]!;
      const spec = this.optionSpecs.find((candidate) => candidate.short === letter);
      if (spec === undefined) {
        throw new ArgError('unknown_option', `Unknown option -${letter}`, `-${letter}`);
      }
      if (spec.type === 'boolean') {
        this.store(options, spec, true);
        continue;
      }
      // The rest of the cluster is the value: `-ofile.txt`, `-n5`.
      const attached = token.letters.slice(position + 1);
      if (attached !== '') {
        this.store(options, spec, this.convert(spec, attached));
        return i;
      }
      const next = tokens[i + 1];
      if (next === undefined || next.kind !== 'value' || next.literal) {
        throw new ArgError('missing_value', `Option -${letter} requires a value`, `-${letter}`);
      }
      this.store(options, spec, this.convert(spec, next.value));
      return i + 1;
    }
    return i;
  }

  private convert(spec: OptionSpec, raw: string): ScalarValue {
    if (spec.type === 'number') {
      const value = toNumber(raw);
      if (value === undefined) {
        throw new ArgError(
          'invalid_value',
          `Option --${spec.name} expects a number, got "${raw}"`,
          `--${spec.name}`,
        );
      }
      return value;
    }
    if (spec.choices !== undefined && !spec.choices.includes(raw)) {
      throw new ArgError(
        'invalid_choice',
        `Option --${spec.name} must be one of ${spec.choices.join(', ')}, got "${raw}"`,
        `--${spec.name}`,
      );
    }
    return raw;
  }

  private store(options: Record<string, OptionValue>, spec: OptionSpec, value: ScalarValue): void {
    if (spec.multiple && typeof value !== 'boolean') {
      const list = options[spec.name];
      options[spec.name] = Array.isArray(list) ? [...list, value] : [value];
      return;
    }
    if (spec.name in options && spec.type !== 'boolean') {
      throw new ArgError('repeated_option', `Option --${spec.name} was given more than once`, `--${spec.name}`);
    }
    options[spec.name] = value;
  }

  private applyDefaults(options: Record<string, OptionValue>): void {
    for (const spec of this.optionSpecs) {
      if (spec.name in options) {
        continue;
      }
      if (spec.default !== undefined) {
        options[spec.name] = Array.isArray(spec.default) ? [...spec.default] : spec.default;
      } else if (spec.required) {
        throw new ArgError('missing_option', `Missing required option --${spec.name}`, `--${spec.name}`);
      }
    }
  }

  private assignPositionals(
    values: readonly string[],
    literals: readonly string[],
  ): { positionals: Record<string, string | string[]>; rest: string[] } {
    const queue = [...values, ...literals];
    const positionals: Record<string, string | string[]> = {};
    for (const spec of this.positionalSpecs) {
      if (spec.variadic) {
        if (queue.length === 0 && spec.required) {
          throw new ArgError('missing_argument', `Missing argument <${spec.name}>`, spec.name);
        }
        positionals[spec.name] = queue.splice(0);
        continue;
      }
      const value = queue.shift();
      if (value === undefined) {
        if (spec.required) {
          throw new ArgError('missing_argument', `Missing argument <${spec.name}>`, spec.name);
        }
        continue;
      }
      positionals[spec.name] = value;
    }
    // Values are consumed before literals, so anything left beyond the literals is an
    // argument nobody declared.
    if (queue.length > literals.length) {
      throw new ArgError('unexpected_argument', `Unexpected argument "${queue[0]}"`, queue[0]);
    }
    return { positionals, rest: queue };
  }
}
