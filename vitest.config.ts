import { defineConfig } from 'vitest/config';
import { engineFreeTestFiles } from './test/engine-free.js';
import { linguiMacros } from './web/lingui-babel.js';

// Test files that must not share a worker's module registry with others: module mocks (vi.mock) and the
// heavy media files whose timing checks assume a fresh heap.
const isolated = [
  'test/scanner/unreadable-folder.test.ts',
  'test/media/pdf-structure.test.ts',
  'test/media/epub-many-pages.test.ts',
  // Its vi.setConfig (long timeouts for the CLI's cold start) must not leak into a shared worker.
  'test/platform/openapi-cli.test.ts',
];

// A PostgreSQL run leaves out the files that never reach a database (test/engine-free.ts): the SQLite run covers them.
const onPostgres = process.env.COLOPHON_TEST_DATABASE === 'postgres';
const engineFree = onPostgres ? engineFreeTestFiles(import.meta.dirname) : [];

// Two cores on the target machines: two forks keep both busy without thrashing PostgreSQL or sharp.
// Every other file shares its worker's module registry (isolate: false): each test builds its own app and
// database, and importing the server afresh per file was half of the suite's CPU time.
export default defineConfig({
  // The web app's logic under test may carry Lingui's macros (web/lingui-babel.ts), as the web build does.
  plugins: [linguiMacros()],
  test: {
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Every temp file of the run under one folder, removed at the end (see the file).
    globalSetup: ['test/global-setup.ts'],
    projects: [
      {
        extends: true,
        // web/src: the web app's pure logic (URL state, filter builder, event parsing); no DOM needed.
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts', 'web/src/**/*.test.ts'],
          setupFiles: ['web/src/i18n-test-setup.ts'],
          exclude: [...isolated, ...engineFree],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: isolated, exclude: engineFree, isolate: true } },
    ],
  },
});
