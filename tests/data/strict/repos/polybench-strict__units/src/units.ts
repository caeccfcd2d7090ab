/** A length in millimetres, parsed from text such as `12mm`, `3cm` or `1.5m`. */
export function parseLength(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(mm|cm|m)$/.exec(text.trim());
  if (match === null) {
    throw new RangeError(`not a length: ${text}`);
  }
  const value = Number(match[1]);
  switch (match[2]) {
    case 'cm':
      return value * 10;
    case 'm':
      return value * 100;
    default:
      return value;
  }
}

/** Whether `text` reads as a length. */
export function isLength(text: string): boolean {
  return /^\d+(?:\.\d+)?(mm|cm|m)$/.test(text);
}

/** The length read from a file-like source, when it resolves. */
export async function loadLength(read: () => Promise<string>): Promise<number> {
  return parseLength(await read());
}
