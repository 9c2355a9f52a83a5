import { defineProject } from 'vitest/config';
import { CPU_BOUND } from '../../vitest.workers.js';

export default defineProject({
  resolve: { conditions: ['source'] },
  // Tests import sibling packages from src/ (the `source` export condition), never stale dist/.
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    name: 'protocol',
    ...CPU_BOUND,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    // Schemas and codecs: pure functions, no module state a test changes; files share modules.
    isolate: false,
  },
});
