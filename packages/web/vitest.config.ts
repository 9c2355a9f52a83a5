import { defineProject } from 'vitest/config';
import { PROCESS_BOUND } from '../../vitest.workers.js';

export default defineProject({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    name: 'web',
    ...PROCESS_BOUND,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // A real daemon, real agents and a real Chromium: seconds, not milliseconds.
    testTimeout: 90_000,
    hookTimeout: 60_000,
    // `expect.poll` waits for the page to show something: a hang guard, not a timing window (a
    // passing test never reaches it). Vitest's default of 1 s is short for a page on a loaded
    // 2-core run.
    expect: { poll: { timeout: 20_000 } },
  },
});
