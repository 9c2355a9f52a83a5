import { defineConfig } from 'vitest/config';
import SuiteSizeSequencer from './vitest.sequencer.js';
import { CPU_BOUND } from './vitest.workers.js';

// One vitest project per workspace package; each package's own vitest.config.ts adds
// its specifics (timeouts, workers: vitest.workers.ts). `source` makes imports of @clippy/* resolve to src/.
// Files named `*.e2e.test.ts` need `npm run build` (they run the built clippy, clippyd or web
// page); `npm run test:unit` leaves them out and runs everything else from the sources.
export default defineConfig({
  resolve: { conditions: ['source'] },
  test: {
    // The longest files first where the last run's durations are unknown (vitest.sequencer.ts).
    sequence: { sequencer: SuiteSizeSequencer },
    // `scripts`: checks of the repository itself (e.g. the package boundaries in lint);
    // `editors/nvim`: the Neovim plugin, tested in a real Neovim.
    projects: [
      'packages/*',
      'editors/nvim',
      { test: { name: 'scripts', include: ['scripts/**/*.test.ts'], ...CPU_BOUND } },
    ],
  },
});
