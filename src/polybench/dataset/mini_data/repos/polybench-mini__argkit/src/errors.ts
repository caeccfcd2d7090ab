/** Machine-readable reason of an {@link ArgError}. */
export type ArgErrorCode =
  | 'invalid_spec'
  | 'unknown_option'
  | 'missing_value'
  | 'unexpected_value'
  | 'invalid_value'
  | 'invalid_choice'
  | 'repeated_option'
  | 'missing_option'
  | 'missing_argument'
  | 'unexpected_argument';

/** Thrown for invalid option definitions and for command lines that do not match them. */
export class ArgError extends Error {
  readonly code: ArgErrorCode;
  /** The option or positional concerned, when there is one (`--output`, `-o`, `file`). */
  readonly subject?: string;

  constructor(code: ArgErrorCode, message: string, subject?: string) {
    super(message);
    this.name = 'ArgError';
    this.code = code;
    this.subject = subject;
  }
}
