import { defineProject } from 'vitest/config';
import { CPU_BOUND } from '../../vitest.workers.js';

export default defineProject({
  resolve: { conditions: ['source'] },
  // Tests import sibling packages from src/ (the `source` export condition), never stale dist/.
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    name: 'repomap',
    ...CPU_BOUND,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    // budget.test's beforeAll builds a repository and its map: past 10 s at a load of 18.
    hookTimeout: 30_000,
    // Map building: no module state a test changes (cache.test restores XDG_CACHE_HOME);
    // files share a worker's modules.
    isolate: false,
  },
});
