import { lingui } from '@lingui/vite-plugin';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { linguiMacros } from './lingui-babel.ts';
import { sizeBudget } from './size-budget.ts';

// The first screen's JavaScript (the entry chunk and what it imports statically) must stay under this, gzipped.
const FIRST_SCREEN_BUDGET_BYTES = 150 * 1024;
// The comic reader route on top of that (the EPUB engine is a lazy chunk of its own and does not count).
const COMIC_READER_BUDGET_BYTES = 120 * 1024;

export default defineConfig({
  root: import.meta.dirname,
  plugins: [
    linguiMacros(),
    react(),
    // `import('./locales/fr.po')` becomes that locale's compiled messages, a chunk of its own loaded on demand.
    lingui({ configPath: new URL('../lingui.config.ts', import.meta.url).pathname }),
    sizeBudget(FIRST_SCREEN_BUDGET_BYTES, [{ label: 'comic reader', chunk: 'ReaderScreen', budgetBytes: COMIC_READER_BUDGET_BYTES }]),
  ],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:8080', '/health': 'http://127.0.0.1:8080', '/opds': 'http://127.0.0.1:8080' },
  },
});
