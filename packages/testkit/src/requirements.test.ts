import { afterEach, describe, expect, it, vi } from 'vitest';
import { MissingInCI, inCI, programMissing, unavailable } from './requirements.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('what a missing requirement does', () => {
  it('outside CI: the tests skip, and the reason is printed and returned', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(unavailable('tmux is not installed', { CI: '' })).toBe('tmux is not installed');
    expect(warn).toHaveBeenCalledWith('skipped: tmux is not installed');
    expect(unavailable(null, { CI: '' })).toBeNull();
  });

  it('in CI (CI=true or 1): the file fails, naming what is missing', () => {
    expect(() => unavailable('chromium is not installed', { CI: 'true' })).toThrow(MissingInCI);
    expect(() => unavailable('chromium is not installed', { CI: '1' })).toThrow(
      'CI must run these tests, but chromium is not installed',
    );
    expect(unavailable(null, { CI: 'true' })).toBeNull();
    expect(inCI({ CI: 'false' })).toBe(false);
  });

  it('a program on the PATH is found; one that is not is named with its package', () => {
    const saved = process.env.CI;
    process.env.CI = '';
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      expect(programMissing('sh')).toBeNull();
      expect(programMissing('no-such-program-here', 'some-package')).toMatch(
        /no-such-program-here is not installed .*apt-get install some-package/,
      );
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      process.env.CI = saved;
    }
  });
});
