import { defineConfig } from 'vitest/config';

// `npm test` loads this file with `--configLoader runner`: the default loader bundles it
// into node_modules/.vite-temp first, which fails when node_modules is read-only.
export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    environment: 'node',
  },
});
