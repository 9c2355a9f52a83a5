import { describe, expect, it } from 'vitest';
import { CliError } from './errors.js';
import { DEFAULT_TURN_TIMEOUT_S, timeoutMs } from './turn-timeout.js';

describe('--timeout of wait and ask', () => {
  it('defaults to DEFAULT_TURN_TIMEOUT_S: a wait never runs for ever unless asked to', () => {
    expect(DEFAULT_TURN_TIMEOUT_S).toBe(600);
    expect(timeoutMs(undefined)).toBe(600_000);
  });
  it('takes seconds, 0 for no limit, and refuses anything else with 64', () => {
    expect(timeoutMs('2.5')).toBe(2500);
    expect(timeoutMs('0')).toBeUndefined();
    for (const bad of ['-1', 'abc', '']) {
      expect(() => timeoutMs(bad)).toThrow(CliError);
      try {
        timeoutMs(bad);
      } catch (err) {
        expect((err as CliError).exitCode).toBe(64);
      }
    }
  });
});
