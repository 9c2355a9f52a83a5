import { defineProject } from 'vitest/config';
import { PROCESS_BOUND } from '../../vitest.workers.js';

export default defineProject({
  resolve: { conditions: ['source'] },
  // Tests import sibling packages from src/ (the `source` export condition), never stale dist/.
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    name: 'system',
    // Its tests start programs on PTYs and run git: they mostly wait.
    ...PROCESS_BOUND,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
