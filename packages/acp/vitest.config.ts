import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['source'] },
  // Tests import sibling packages from src/ (the `source` export condition), never stale dist/.
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    name: 'acp',
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
