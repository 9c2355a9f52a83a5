import { defineConfig } from 'vitest/config';

// One vitest project per workspace package; each package's own vitest.config.ts adds
// its specifics (timeouts, pools). `source` makes imports of @clippy/* resolve to src/.
export default defineConfig({
  resolve: { conditions: ['source'] },
  test: {
    projects: ['packages/*'],
  },
});
