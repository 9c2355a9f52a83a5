import { defineProject } from 'vitest/config';
import { PROCESS_BOUND } from '../../vitest.workers.js';

export default defineProject({
  resolve: { conditions: ['source'] },
  // Tests import sibling packages from src/ (the `source` export condition), never stale dist/.
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    name: 'mcp',
    ...PROCESS_BOUND,
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
    // Hooks start and stop daemons, agents and clippy mcp processes: past vitest's 10 s under load.
    hookTimeout: 60_000,
  },
});
