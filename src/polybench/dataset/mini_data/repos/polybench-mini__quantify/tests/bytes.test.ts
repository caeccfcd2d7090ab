import { describe, expect, it } from 'vitest';
import { ParseError, formatBytes, parseBytes } from '../src/index.js';

describe('parseBytes', () => {
  it('reads plain byte counts', () => {
    expect(parseBytes('2048')).toBe(2048);
    expect(parseBytes('12 bytes')).toBe(12);
  });

  it('reads decimal units', () => {
    expect(parseBytes('1.5 kB')).toBe(1500);
    expect(parseBytes('20MB')).toBe(20_000_000);
    expect(parseBytes('3 gigabytes')).toBe(3e9);
  });

  it('reads binary units', () => {
    expect(parseBytes('1 KiB')).toBe(1024);
    expect(parseBytes('1.5 MiB')).toBe(1.5 * 2 ** 20);
    expect(parseBytes('4gib')).toBe(4 * 2 ** 30);
  });

  it('rounds to whole bytes', () => {
    expect(parseBytes('0.3 KiB')).toBe(307);
  });

  it('rejects malformed sizes', () => {
    expect(() => parseBytes('')).toThrow(/Empty size/);
    expect(() => parseBytes('MB')).toThrow(/Expected a number/);
    expect(() => parseBytes('5 parsecs')).toThrow(ParseError);
    expect(() => parseBytes('5 MB 3')).toThrow(/Unexpected "3"/);
  });
});

describe('formatBytes', () => {
  it('uses decimal units by default', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(1536)).toBe('1.5 kB');
    expect(formatBytes(42e9)).toBe('42 GB');
  });

  it('uses binary units on request', () => {
    expect(formatBytes(1536, { binary: true })).toBe('1.5 KiB');
    expect(formatBytes(5 * 2 ** 20, { binary: true })).toBe('5 MiB');
    expect(formatBytes(2 ** 31, { binary: true })).toBe('2 GiB');
  });

  it('moves to the next unit when rounding reaches it', () => {
    expect(formatBytes(999_999)).toBe('1 MB');
    expect(formatBytes(2 ** 20 - 1, { binary: true })).toBe('1 MiB');
  });

  it('honours decimals and space', () => {
    expect(formatBytes(1234567, { decimals: 3 })).toBe('1.235 MB');
    expect(formatBytes(1500, { space: false })).toBe('1.5kB');
  });

  it('keeps the sign of negative sizes', () => {
    expect(formatBytes(-2500)).toBe('-2.5 kB');
  });

  it('rejects values that are not finite', () => {
    expect(() => formatBytes(Number.NaN)).toThrow(RangeError);
  });
});
