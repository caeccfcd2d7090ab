export { parseDuration, parseBytes, type ParseDurationOptions } from './parse.js';
export {
  formatDuration,
  formatBytes,
  type DurationStyle,
  type FormatDurationOptions,
  type FormatBytesOptions,
} from './format.js';
export { Tokenizer, tokenize, type Token, type NumberToken, type WordToken } from './tokenizer.js';
export { QuantifyError, ParseError } from './errors.js';
export {
  DURATION_UNITS,
  SI_BYTE_UNITS,
  IEC_BYTE_UNITS,
  MILLISECOND,
  SECOND,
  MINUTE,
  HOUR,
  DAY,
  WEEK,
  type DurationUnit,
  type DurationUnitName,
  type ByteUnit,
} from './units.js';
