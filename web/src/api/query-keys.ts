/**
 * Every TanStack Query key of the web app, from one place. A key starts with the resource it holds (`['series', …]`,
 * `['books', …]`), so a resource's `all` key reaches every query under it: the live events (`staleKeysFor`) and the
 * mutations invalidate by that prefix. The keys are the arrays the screens used before, so what an invalidation
 * reaches is unchanged; a new key belongs under the resource whose changes should make it stale.
 */

/** One view of the library grid: its scope, order, search and filters (the page number comes last). */
export interface GridKeyParams {
  libraryId: string | undefined;
  /** The sort, or `rank` when a search is ordered by relevance. */
  order: string;
  q: string;
  condition: unknown;
}

const gridKey = <R extends 'series' | 'books'>(resource: R, p: GridKeyParams) =>
  [resource, 'grid', p.libraryId ?? 'all', resource, p.order, p.q, p.condition ?? null] as const;

export const queryKeys = {
  setupStatus: ['setup-status'] as const,
  me: ['me'] as const,
  preferences: ['preferences'] as const,
  /** The addresses other devices reach the server by (a new API key's QR codes). */
  serverAddresses: ['server-addresses'] as const,
  /** Administration → Backups. */
  backups: ['backups'] as const,
  /** Administration → Metadata sources. */
  metadataProviders: ['metadata-providers'] as const,
  /** The review queue, by status after it; a series' identification changes it. */
  metadataReview: ['series', 'metadata-review'] as const,
  libraries: {
    all: ['libraries'] as const,
    scanStatus: (libraryId: string) => ['libraries', libraryId, 'scan-status'] as const,
  },
  series: {
    all: ['series'] as const,
    detail: (seriesId: string | undefined) => ['series', seriesId] as const,
    /** The setup wizard's newest series of the library being scanned. */
    ofSetupLibrary: (libraryId: string) => ['series', 'setup', libraryId] as const,
    /** One page of the library grid's series view. */
    gridPage: (params: GridKeyParams, page: number) => [...gridKey('series', params), page] as const,
  },
  books: {
    all: ['books'] as const,
    detail: (bookId: string) => ['books', bookId] as const,
    pages: (bookId: string) => ['books', bookId, 'pages'] as const,
    ofSeries: (seriesId: string | undefined) => ['books', 'of-series', seriesId] as const,
    analysisErrors: ['books', 'analysis-errors'] as const,
    /** One page of the library grid's books view. */
    gridPage: (params: GridKeyParams, page: number) => [...gridKey('books', params), page] as const,
  },
  shelves: {
    all: ['shelves'] as const,
    shelf: (shelfId: string, pageSize: number) => ['shelves', shelfId, pageSize] as const,
  },
  /** Collections of series (GET /collections, one collection, its series, the collections holding a series). */
  collections: {
    all: ['collections'] as const,
    list: ['collections', 'list'] as const,
    detail: (collectionId: string) => ['collections', collectionId] as const,
    series: (collectionId: string) => ['collections', collectionId, 'series'] as const,
    ofSeries: (seriesId: string) => ['collections', 'of-series', seriesId] as const,
  },
  /** Read lists (GET /read-lists, one list with its items, the caller's progress through it, those holding a book). */
  readLists: {
    all: ['read-lists'] as const,
    list: ['read-lists', 'list'] as const,
    detail: (readListId: string) => ['read-lists', readListId] as const,
    progress: (readListId: string) => ['read-lists', readListId, 'progress'] as const,
    ofBook: (bookId: string) => ['read-lists', 'of-book', bookId] as const,
  },
  search: {
    all: ['search'] as const,
    series: (query: string) => ['search', 'series', query] as const,
    books: (query: string) => ['search', 'books', query] as const,
  },
  /** No query is kept under it: cover images are reloaded by `coversChanged`. */
  covers: { all: ['covers'] as const },
  /** A book's saved reading position (its page), asked afresh when the reader opens. */
  progress: (bookId: string) => ['progress', bookId] as const,
  /** The EPUB reader's saved position of a book (its locator). */
  progressLocator: (bookId: string) => ['progress-locator', bookId] as const,
  readingStats: (days: number) => ['reading-stats', days] as const,
  apiKeys: {
    all: ['api-keys'] as const,
    presets: ['api-keys', 'presets'] as const,
  },
  filesystem: {
    drives: ['filesystem', 'drives'] as const,
    browse: (path: string | undefined) => ['filesystem', 'browse', path ?? ''] as const,
  },
  users: {
    all: ['users'] as const,
    /** What a user sees now (GET /users/{id}/access-summary). */
    accessSummary: (userId: string) => ['users', userId, 'access-summary'] as const,
    /** What an access being edited would show (POST /users/access-preview), keyed by that access. */
    accessPreview: (access: unknown) => ['users', 'access-preview', access] as const,
  },
  adminSettings: {
    all: ['admin-settings'] as const,
    history: (settingKey: string) => ['admin-settings', 'history', settingKey] as const,
  },
  tasks: {
    all: ['tasks'] as const,
    /** The task list, of one status or (`''`) all. */
    list: (status: string) => ['tasks', status] as const,
    stats: ['tasks', 'stats'] as const,
  },
  scans: { active: ['scans', 'active'] as const },
  duplicates: {
    all: ['duplicates'] as const,
    books: ['duplicates', 'books'] as const,
    series: ['duplicates', 'series'] as const,
  },
  health: ['health'] as const,
  metrics: ['metrics'] as const,
};
