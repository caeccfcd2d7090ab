/** Base class of every error thrown on purpose by quantify. */
export class QuantifyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The input string could not be understood. */
export class ParseError extends QuantifyError {
  /** The complete string that was being parsed. */
  readonly input: string;
  /** Index in `input` where the problem was found. */
  readonly offset: number;

  constructor(reason: string, input: string, offset: number) {
    super(`${reason} at offset ${offset} in ${JSON.stringify(input)}`);
    this.input = input;
    this.offset = offset;
  }
}
