import { defineConfig } from '@lingui/cli';
import { formatter } from '@lingui/format-po';

/**
 * The web app's message catalogues (issue 53, docs/decisions/046): gettext PO files, one per locale, which Weblate
 * reads and writes. `npm run i18n:extract` regenerates them from the source; `npm run i18n:check` fails when they
 * are not what the source says (a message not extracted, a key the source no longer has).
 */
export default defineConfig({
  sourceLocale: 'en',
  locales: ['en', 'fr', 'de', 'es', 'it', 'pt-BR', 'nl', 'pl', 'ja', 'zh-Hans', 'ko', 'ar'],
  fallbackLocales: { default: 'en' },
  catalogs: [
    {
      path: '<rootDir>/web/src/locales/{locale}',
      include: ['<rootDir>/web/src'],
      exclude: ['**/*.test.ts', '**/schema.gen.ts', '**/locales/**'],
    },
  ],
  format: formatter({ lineNumbers: false, origins: false }),
  orderBy: 'messageId',
});
