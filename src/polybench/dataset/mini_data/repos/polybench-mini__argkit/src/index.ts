export { ArgParser } from './parser';
export { ArgError, ArgErrorCode } from './errors';
export { tokenize, type Token, type LongToken, type ShortToken, type ValueToken } from './tokenize';
export { formatHelp, type HelpSource } from './help';
export { toBoolean, toNumber } from './coerce';
export type {
  OptionConfig,
  OptionSpec,
  OptionType,
  OptionValue,
  ParseResult,
  PositionalConfig,
  PositionalSpec,
  ScalarValue,
} from './types';
