'use strict';

const { EnvParseError } = require('./errors');

// `KEY=value`, optionally preceded by `export ` as in shell scripts.
const ASSIGNMENT = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)$/;
const QUOTES = ['"', "'", '`'];
const ESCAPES = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

/**
 * Resolve the escape sequences of a double-quoted value. Unknown sequences
 * (notably `\$`) are kept as written so that expansion can still see them.
 */
function unescapeDouble(text) {
  return text.replace(/\\(.)/g, (sequence, char) =>
    Object.prototype.hasOwnProperty.call(ESCAPES, char) ? ESCAPES[char] : sequence,
  );
}

/** True when `text` opens a quoted value that is not closed on the same line. */
function isOpenQuote(text) {
  const quote = text[0];
  if (!QUOTES.includes(quote)) return false;
  for (let i = 1; i < text.length; i++) {
    if (quote === '"' && text[i] === '\\') {
      i++;
      continue;
    }
    if (text[i] === quote) return false;
  }
  return true;
}

/**
 * Turn the raw text after `=` into a value.
 *
 * Returns `{ value, quote }` where `quote` is the quote character the value
 * was written with, or `null` for a bare value.
 */
function parseValue(raw, lineNumber) {
  let text = raw;
  const comment = text.indexOf(' #');
  if (comment !== -1) text = text.slice(0, comment);
  text = text.trim();

  const quote = text[0];
  if (!QUOTES.includes(quote)) return { value: text, quote: null };
  if (text.length < 2 || text[text.length - 1] !== quote) {
    throw new EnvParseError(`line ${lineNumber}: unterminated ${quote} quoted value`, {
      line: lineNumber,
    });
  }
  const inner = text.slice(1, -1);
  return { value: quote === '"' ? unescapeDouble(inner) : inner, quote };
}

/**
 * Parse the text of a .env file into entries `{ key, value, quote, line }`,
 * in file order. Later entries win when a key is repeated.
 */
function parseEntries(source) {
  const lines = String(source).replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').split('\n');
  const entries = [];
  for (let index = 0; index < lines.length; index++) {
    const lineNumber = index + 1;
    const line = lines[index];
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;

    const match = ASSIGNMENT.exec(line);
    if (!match) {
      throw new EnvParseError(`line ${lineNumber}: expected KEY=value, got ${JSON.stringify(trimmed)}`, {
        line: lineNumber,
      });
    }
    let raw = match[2];
    if (isOpenQuote(raw.trimStart())) {
      // A quoted value may span several lines: collect them up to the closing quote.
      const parts = [raw];
      while (index + 1 < lines.length && isOpenQuote(parts.join('\n').trimStart())) {
        index++;
        parts.push(lines[index]);
      }
      raw = parts.join('\n');
    }
    const { value, quote } = parseValue(raw, lineNumber);
    entries.push({ key: match[1], value, quote, line: lineNumber });
  }
  return entries;
}

/** Parse the text of a .env file into a plain `{ KEY: value }` object. */
function parse(source) {
  const result = {};
  for (const entry of parseEntries(source)) result[entry.key] = entry.value;
  return result;
}

/** Serialise `{ KEY: value }` back to .env text, quoting only where needed. */
function stringify(variables) {
  const lines = [];
  for (const [key, value] of Object.entries(variables)) {
    if (!/^[A-Za-z_][A-Za-z0-9_.]*$/.test(key)) {
      throw new TypeError(`cannot write ${JSON.stringify(key)}: not a valid variable name`);
    }
    const text = value === undefined || value === null ? '' : String(value);
    if (/^[^\s"'`#\\]*$/.test(text)) {
      lines.push(`${key}=${text}`);
    } else {
      const escaped = text
        .replace(/\\/g, '\\\\')
        .replace(/"/g, '\\"')
        .replace(/\n/g, '\\n')
        .replace(/\r/g, '\\r')
        .replace(/\t/g, '\\t');
      lines.push(`${key}="${escaped}"`);
    }
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}

module.exports = { parse, parseEntries, stringify };
