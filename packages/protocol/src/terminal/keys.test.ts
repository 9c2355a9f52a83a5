import { describe, expect, it } from 'vitest';
import { KeyError, encodeKeys } from './keys.js';

const normal = { applicationCursor: false };
const app = { applicationCursor: true };

describe('encodeKeys', () => {
  it('cursor keys follow the cursor-key mode', () => {
    expect(encodeKeys(['Up', 'down', 'LEFT', 'Right'], normal)).toBe('\x1b[A\x1b[B\x1b[D\x1b[C');
    expect(encodeKeys(['Up', 'Down', 'Home', 'End'], app)).toBe('\x1bOA\x1bOB\x1bOH\x1bOF');
  });

  it('named keys, Ctrl and Alt, literal words', () => {
    expect(encodeKeys(['Enter', 'Tab', 'Esc', 'BSpace', 'Space', 'F5'], normal)).toBe(
      '\r\t\x1b\x7f \x1b[15~',
    );
    expect(encodeKeys(['C-c', 'c-Z', 'C-[', 'C-?', 'C-@'], normal)).toBe('\x03\x1a\x1b\x7f\x00');
    expect(encodeKeys(['M-x', 'M-Enter', 'M-Up'], app)).toBe('\x1bx\x1b\r\x1b\x1bOA');
    expect(encodeKeys(['1', 'yes', 'C-'], normal)).toBe('1yesC-');
  });

  it('refuses a Ctrl key that has no control character, naming it', () => {
    expect(() => encodeKeys(['C-1'], normal)).toThrow(KeyError);
    expect(() => encodeKeys(['Enter', 'C-xy'], normal)).toThrow("'C-xy' is not a key");
  });
});
