import { describe, expect, it } from 'vitest';
import { parseIntOption } from './int-option.js';

describe('parseIntOption', () => {
  it('takes a whole number in range, as typed or as a number', () => {
    expect(parseIntOption('--limit', '10')).toBe(10);
    expect(parseIntOption('--limit', ' 7 ')).toBe(7);
    expect(parseIntOption('--limit', 3)).toBe(3);
    expect(parseIntOption('--port', '0', { min: 0, max: 65535 })).toBe(0);
    expect(parseIntOption('--last', '1000', { max: 1000 })).toBe(1000);
  });

  it('refuses anything else with exit 64, naming the option, the range and what was typed', () => {
    for (const [given, range, message] of [
      ['abc', {}, "--x must be a whole number of 1 or more (got 'abc')"],
      ['0', {}, "--x must be a whole number of 1 or more (got '0')"],
      ['2.5', {}, "--x must be a whole number of 1 or more (got '2.5')"],
      ['', {}, "--x must be a whole number of 1 or more (got '')"],
      ['1e3', {}, "--x must be a whole number of 1 or more (got '1e3')"],
      ['-1', { min: 0 }, "--x must be a whole number of 0 or more (got '-1')"],
      ['1001', { max: 1000 }, "--x must be a whole number from 1 to 1000 (got '1001')"],
      [
        '99999999999999999999',
        {},
        "--x must be a whole number of 1 or more (got '99999999999999999999')",
      ],
    ] as const) {
      expect(() => parseIntOption('--x', given, range)).toThrow(
        expect.objectContaining({ message, exitCode: 64 }),
      );
    }
  });
});
