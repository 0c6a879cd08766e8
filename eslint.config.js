import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'data/',
      'node_modules/',
      'coverage/',
      '.bench/',
      'web/dist/',
      'web/.api/',
      'web/src/api/schema.gen.ts',
      'test-results/',
      'playwright-report/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  {
    // Promise mistakes the types show: a promise nobody awaits or handles (its rejection goes unhandled), one
    // passed where a plain callback is expected, `await` of something that is no promise. Type-aware, so only
    // over the server and its tests (tsconfig.json's project; the web app has its own tsconfig).
    files: ['src/**/*.ts', 'test/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    files: ['.dependency-cruiser.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable' } },
  },
  {
    files: ['scripts/**/*.mjs'],
    languageOptions: { globals: { URL: 'readonly', console: 'readonly', process: 'readonly' } },
  },
  {
    files: ['web/src/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
  },
  {
    // The web app is built apart from the server: it takes the server's shapes from the generated OpenAPI types.
    files: ['web/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+src/',
              message: "The web app takes the server's types from the generated OpenAPI types (api/schema.gen.ts), never from src/.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/cli.ts', 'bench/**', '.ci/**', 'scripts/**', 'web/size-budget.ts'],
    rules: { 'no-console': 'off' },
  },
);
