import { defineProject } from 'vitest/config';
import { PROCESS_BOUND } from '../../vitest.workers.js';

// The Neovim plugin's tests: real headless Neovim against the real daemon (the root
// vitest.config.ts lists this directory among its projects, so `npm test` runs them).
export default defineProject({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    name: 'nvim',
    ...PROCESS_BOUND,
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
