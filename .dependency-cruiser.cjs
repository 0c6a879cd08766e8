/**
 * Import boundaries (docs/architecture.md draws the layers; docs/layout.md says what each folder is). Run by
 * `npm run lint`; test/platform/import-rules.test.ts shows that a wrong import fails it.
 *
 * A feature folder (src/modules/<feature>) exposes to other features everything except its internals:
 * its routes (`routes.ts`, `*-routes.ts`: HTTP wiring belongs to the feature) and its repositories
 * (`repository.ts`, `*-repository.ts`: SQL belongs to the feature). A repository may still be named as a
 * *type* (a service's injected dependency); the composition root is what constructs it.
 */
const REPOSITORY = '^src/modules/[^/]+/[^/]*repository[.]ts$';
const ROUTES = '^src/modules/[^/]+/[^/]*routes[.]ts$';
const FEATURE_FOLDER = '^src/modules/[^/]+/?$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles, type-only ones included.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'media-is-pure',
      severity: 'error',
      comment: 'media/ reads files; it imports nothing of ours outside media/ but types.',
      from: { path: '^src/media/' },
      to: { path: '^src/', pathNot: '^src/media/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'infrastructure-knows-no-feature',
      severity: 'error',
      comment: 'db/, http/ (plumbing), config/, events/ and tasks/ know no feature, scanner, feed or compat layer.',
      from: { path: '^src/(db|http|config|events|tasks)/' },
      to: { path: '^src/(modules|scanner|feeds|compat)/|^src/(app|composition-root)\\.ts$' },
    },
    {
      name: 'presenters-call-services',
      severity: 'error',
      comment: 'Feeds and the Komga layer present the services: never a repository, the database or the scanner.',
      from: { path: '^src/(feeds|compat)/' },
      to: { path: `^src/(db|scanner)/|${REPOSITORY}` },
    },
    {
      name: 'features-use-public-surface',
      severity: 'error',
      comment: "A feature never imports another feature's routes, nor its repositories except as types.",
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: ROUTES, pathNot: '^src/modules/$1/' },
    },
    {
      name: 'features-do-not-query-each-other',
      severity: 'error',
      comment: "Another feature's repository is wired by the composition root; a feature names it only as a type.",
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: REPOSITORY, pathNot: '^src/modules/$1/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'feature-folders-do-not-import-each-other',
      severity: 'error',
      comment:
        'No two feature folders depend on each other, even through their public surface and type-only: the shared piece moves to ' +
        'where it belongs, or one side takes an interface the composition root fills in.',
      scope: 'folder',
      from: { path: FEATURE_FOLDER },
      to: { path: FEATURE_FOLDER, circular: true },
    },
    {
      name: 'migrations-import-no-live-code',
      severity: 'error',
      comment:
        "A migration is history: it copies what it needs (a table of ages, a folding function) so that editing today's code cannot change what an old migration did. Types only, and new ids (db/ids.ts).",
      from: { path: '^src/db/migrations/' },
      to: { path: '^src/', pathNot: '^src/db/(migrations/|dialect-migration\\.ts$|ids\\.ts$)', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'nothing-imports-the-wiring',
      severity: 'error',
      comment: 'Only the entry points (cli, server, app) use the composition root; features never construct each other.',
      from: { path: '^src/', pathNot: '^src/(app|server|cli)\\.ts$' },
      to: { path: '^src/composition-root\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
