import { describe, expect, it } from 'vitest';
import { exitStatus } from './ending.js';

describe('exitStatus', () => {
  it('passes codes through and maps signals to 128+signo', () => {
    expect(exitStatus(3, null)).toBe(3);
    expect(exitStatus(0, null)).toBe(0);
    expect(exitStatus(null, 'SIGKILL')).toBe(137);
    expect(exitStatus(null, 'SIGHUP')).toBe(129);
    expect(exitStatus(null, null)).toBe(1);
  });
});
