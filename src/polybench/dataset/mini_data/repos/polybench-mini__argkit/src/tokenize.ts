import { END_OF_OPTIONS, LONG_OPTION } from './patterns';

/** `--name` or `--name=value`. */
export interface LongToken {
  readonly kind: 'long';
  readonly name: string;
  /** The text after `=`, if the argument had one. */
  readonly value?: string;
  readonly index: number;
}

/** `-abc`: one or more single-letter options, possibly followed by an attached value. */
export interface ShortToken {
  readonly kind: 'short';
  /** Everything after the dash. */
  readonly letters: string;
  readonly index: number;
}

/** An argument that is not an option: a positional or the value of the preceding option. */
export interface ValueToken {
  readonly kind: 'value';
  readonly value: string;
  /** `true` for arguments after `--`, which can never be option values. */
  readonly literal: boolean;
  readonly index: number;
}

export type Token = LongToken | ShortToken | ValueToken;

/**
 * Classifies every argument of `argv`. `index` is the position of the argument in `argv`,
 * used in error messages.
 *
 * - `--` ends option parsing: it is dropped and every later argument is a literal value;
 * - `--name` and `--name=value` are long options;
 * - `-x`, `-xyz`, `-ofile` are short options (the parser decides which letters take a value);
 * - anything else, including a lone `-` (stdin by convention), is a value.
 */
export function tokenize(argv: readonly string[]): Token[] {
  const tokens: Token[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;

    if (arg === END_OF_OPTIONS) {
      for (let rest = index + 1; rest < argv.length; rest++) {
        tokens.push({ kind: 'value', value: argv[rest]!, literal: true, index: rest });
      }
      break;
    }

    const long = LONG_OPTION.exec(arg);
    if (long) {
      tokens.push({ kind: 'long', name: long[1]!, value: long[2], index });
    } else if (arg.length > 1 && arg.startsWith('-') && !arg.startsWith('--')) {
      tokens.push({ kind: 'short', letters: arg.slice(1), index });
    } else {
      tokens.push({ kind: 'value', value: arg, literal: false, index });
    }
  }
  return tokens;
}
