import { defineProject } from 'vitest/config';
import { PROCESS_BOUND } from '../../vitest.workers.js';

export default defineProject({
  resolve: { conditions: ['source'] },
  // Tests import sibling packages from src/ (the `source` export condition), never stale dist/.
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    name: 'cli',
    ...PROCESS_BOUND,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    // A file's beforeAll starts a daemon and connects: on a loaded 2-core box that took more
    // than vitest's 10 s default; it ends as soon as the daemon answers.
    hookTimeout: 30_000,
  },
});
