/**
 * Import boundaries (docs/architecture.md draws the layers; docs/layout.md says what each folder is). Run by
 * `npm run lint`; test/platform/import-rules.test.ts shows that a wrong import fails it.
 *
 * The server is a few areas (src/<area>/), each with one face, src/<area>/index.ts: what other areas may use of
 * it, and its compose(). Another area's files are reached only through that face. Inside an area, a feature
 * folder's routes (`routes.ts`, `*-routes.ts`) and repositories (`repository.ts`, `*-repository.ts`) are its
 * own: its face wires them; a repository may still be named as a *type* (a service's injected dependency).
 */
const AREA = '(libraries|catalog|reading|lists|identity|operations|protocols)';
const FACE = `^src/${AREA}/index[.]ts$`;
const REPOSITORY = '[^/]*repository[.]ts$';
const ROUTES = '[^/]*routes[.]ts$';
const FEATURE_FOLDER = `^src/${AREA}/[^/]+/?$`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles, type-only ones included (so two areas never depend on each other both ways).',
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
      name: 'infrastructure-knows-no-area',
      severity: 'error',
      comment: 'db/, http/ (plumbing), config/, events/, tasks/ and util/ know no area and not the wiring.',
      from: { path: '^src/(db|http|config|events|tasks|util|i18n)/' },
      to: { path: `^src/${AREA}/|^src/(app|composition-root)\\.ts$` },
    },
    {
      name: 'areas-meet-at-their-faces',
      severity: 'error',
      comment: 'Another area is used only through its face (src/<area>/index.ts), types included: what it does not export is its own.',
      from: { path: `^src/${AREA}/` },
      to: { path: `^src/${AREA}/`, pathNot: [`^src/$1/`, FACE] },
    },
    {
      name: 'presenters-call-services',
      severity: 'error',
      comment:
        "The protocols present the areas' services: never the database, the scanner or another's repository (their own sync state has its repository).",
      from: { path: '^src/protocols/([^/]+)/', pathNot: REPOSITORY },
      to: {
        path: `^src/(db|libraries/scanning/scanner)/|^src/${AREA}/.*${REPOSITORY}`,
        pathNot: ['^src/protocols/$1/', '^src/db/(ids|json-column)[.]ts$'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'routes-are-wired-by-their-face',
      severity: 'error',
      comment: "A feature folder's routes are registered by its area's face, never imported by a neighbour.",
      from: { path: '^(src/[^/]+/[^/]+)/' },
      to: { path: `^src/${AREA}/.*${ROUTES}`, pathNot: '^$1/' },
    },
    {
      name: 'repositories-are-built-by-their-face',
      severity: 'error',
      comment: "A neighbour's repository is built by the area's face (compose) and handed over; a feature names it only as a type.",
      from: { path: '^(src/[^/]+/[^/]+)/' },
      to: { path: `^src/${AREA}/.*${REPOSITORY}`, pathNot: '^$1/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'feature-folders-do-not-import-each-other',
      severity: 'error',
      comment:
        'No two feature folders of an area depend on each other, even type-only: the shared piece moves to where it belongs, ' +
        'or one side takes an interface the face fills in.',
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
      comment:
        'Only the entry points (cli, server, app) use the composition root (and the one file of Fastify augmentations, for a type); areas never construct each other.',
      from: { path: '^src/', pathNot: '^src/(app|server|cli|fastify-types)\\.ts$' },
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
