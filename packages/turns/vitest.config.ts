import { defineProject } from 'vitest/config';
import { CPU_BOUND } from '../../vitest.workers.js';

export default defineProject({
  resolve: { conditions: ['source'] },
  // Tests import sibling packages from src/ (the `source` export condition), never stale dist/.
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    name: 'turns',
    ...CPU_BOUND,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    // The turn engine is pure (no I/O, no timers, no module state a test changes): its files
    // share a worker's modules, so the corpus and presets load once, not once a file.
    isolate: false,
  },
});
