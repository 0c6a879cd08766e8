import { defineConfig } from 'vitest/config';

// Two cores on the target machines: two forks keep both busy without thrashing PostgreSQL or sharp.
export default defineConfig({
  test: {
    // web/src: the web app's pure logic (URL state, filter builder, event parsing); no DOM needed.
    include: ['test/**/*.test.ts', 'web/src/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
