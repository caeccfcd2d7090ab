import { ParseError } from './errors.js';

export interface NumberToken {
  readonly kind: 'number';
  readonly value: number;
  readonly text: string;
  readonly offset: number;
}

export interface WordToken {
  readonly kind: 'word';
  /** The word as written. */
  readonly text: string;
  readonly offset: number;
}

export type Token = NumberToken | WordToken;

const isDigit = (ch: string | undefined): boolean => ch !== undefined && ch >= '0' && ch <= '9';

const isLetter = (ch: string | undefined): boolean =>
  ch !== undefined && /^[\p{L}]$/u.test(ch);

/**
 * Splits strings such as `"1h 30m"`, `"2.5 days"` or `"1 hour, 5 minutes"` into number
 * and word tokens. Whitespace and commas separate tokens and are never returned.
 */
export class Tokenizer {
  /** Characters skipped between tokens. */
  static readonly SEPARATORS: ReadonlySet<string> = new Set([' ', '\t', '\n', '\r', ',']);

  private pos = 0;
  private lookahead: Token | null | undefined;

  constructor(private readonly input: string) {}

  /** Offset of the next character that has not been consumed yet. */
  get offset(): number {
    return this.lookahead ? this.lookahead.offset : this.pos;
  }

  /** Returns the next token without consuming it, or `null` at the end of the input. */
  peek(): Token | null {
    if (this.lookahead === undefined) {
      this.lookahead = this.scan();
    }
    return this.lookahead;
  }

  /** Consumes and returns the next token, or `null` at the end of the input. */
  next(): Token | null {
    const token = this.peek();
    this.lookahead = undefined;
    return token;
  }

  /** Consumes every remaining token. */
  all(): Token[] {
    const tokens: Token[] = [];
    for (let token = this.next(); token !== null; token = this.next()) {
      tokens.push(token);
    }
    return tokens;
  }

  private scan(): Token | null {
    while (this.pos < this.input.length && Tokenizer.SEPARATORS.has(this.input[this.pos]!)) {
      this.pos++;
    }
    if (this.pos >= this.input.length) {
      return null;
    }
    const ch = this.input[this.pos];
    if (isDigit(ch) || (ch === '.' && isDigit(this.input[this.pos + 1]))) {
      return this.readNumber();
    }
    if (isLetter(ch)) {
      return this.readWord();
    }
    throw new ParseError(`Unexpected character ${JSON.stringify(ch)}`, this.input, this.pos);
  }

  private readNumber(): NumberToken {
    const start = this.pos;
    let seenDot = false;
    while (this.pos < this.input.length) {
      const ch = this.input[this.pos];
      if (isDigit(ch) || ch === '_') {
        this.pos++;
      } else if (ch === '.' && !seenDot && isDigit(this.input[this.pos + 1])) {
        seenDot = true;
        this.pos++;
      } else {
        break;
      }
    }
    const text = this.input.slice(start, this.pos);
    if (text.startsWith('_') || text.endsWith('_') || text.includes('__')) {
      throw new ParseError(`Misplaced digit separator in ${JSON.stringify(text)}`, this.input, start);
    }
    return { kind: 'number', value: Number(text.replace(/_/g, '')), text, offset: start };
  }

  private readWord(): WordToken {
    const start = this.pos;
    while (this.pos < this.input.length && isLetter(this.input[this.pos])) {
      this.pos++;
    }
    return { kind: 'word', text: this.input.slice(start, this.pos), offset: start };
  }
}

/** Convenience wrapper: every token of `input`. */
export function tokenize(input: string): Token[] {
  return new Tokenizer(input).all();
}
