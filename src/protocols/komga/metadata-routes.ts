import { z } from 'zod';
import { badRequest } from '../../http/errors.js';
import { Uuid } from '../../http/params.js';
import type { App } from '../../http/types.js';
import { callerOf } from '../../identity/index.js';
import { AUTHOR_ROLES, BookUpdate, type MetadataChange, SeriesMetadataChanges } from '../../catalog/index.js';
import type { KomgaPresenter } from './presenter.js';
import { BookParams, hidden, komgaRoute, SeriesParams } from './route-config.js';

type Body = Record<string, unknown>;
const KomgaBody = z.record(z.string(), z.unknown());

/** Komga's field name → ours, with the conversion of its value (null unsets, as Komga says). */
type Mapping = Record<string, [field: string, convert?: (v: unknown) => unknown]>;

const DIRECTION: Record<string, string> = { LEFT_TO_RIGHT: 'ltr', RIGHT_TO_LEFT: 'rtl', VERTICAL: 'vertical', WEBTOON: 'webtoon' };
const orEmpty = (v: unknown) => v ?? [];
const links = (v: unknown) =>
  Array.isArray(v) ? v.map((l: { label?: unknown; url?: unknown }) => ({ label: l?.label ?? '', url: l?.url ?? '' })) : [];

const SERIES_MAPPING: Mapping = {
  title: ['title'],
  titleSort: ['sort_title'],
  summary: ['summary'],
  publisher: ['publisher'],
  status: ['status', (v) => (typeof v === 'string' ? v.toLowerCase() : v)],
  readingDirection: ['reading_direction', (v) => (typeof v === 'string' ? (DIRECTION[v] ?? v) : v)],
  // Komga rates by age; the number is a rating our age table reads as that age.
  ageRating: ['age_rating', (v) => (typeof v === 'number' ? `${v}+` : v)],
  language: ['language'],
  genres: ['genres', orEmpty],
  tags: ['tags', orEmpty],
  totalBookCount: ['total_book_count'],
  links: ['links', links],
  alternateTitles: ['alternate_titles', orEmpty],
};

const BOOK_MAPPING: Mapping = {
  title: ['title'],
  summary: ['summary'],
  number: ['number'],
  numberSort: ['number_sort'],
  releaseDate: ['release_date'],
  authors: [
    'authors',
    (v) =>
      Array.isArray(v)
        ? v.map((a: { name?: unknown; role?: unknown }) => {
            const role = typeof a?.role === 'string' ? a.role.toLowerCase() : '';
            return { name: a?.name, role: (AUTHOR_ROLES as readonly string[]).includes(role) ? role : 'other' };
          })
        : [],
  ],
  tags: ['tags', orEmpty],
  isbn: ['isbn'],
  links: ['links', links],
};

/** A Komga update DTO as our change: values under our names, `xLock` as the lock of x. */
function toNative(body: Body, mapping: Mapping, schema: z.ZodType): MetadataChange {
  const native: Body = {};
  const locks: Record<string, boolean> = {};
  for (const [komgaName, [field, convert]] of Object.entries(mapping)) {
    if (komgaName in body) native[field] = convert ? convert(body[komgaName]) : body[komgaName];
    const lock = body[`${komgaName}Lock`];
    if (typeof lock === 'boolean') locks[field] = lock;
  }
  // A book's title cannot be unset: null leaves it as it is.
  if (mapping === BOOK_MAPPING && native.title === null) delete native.title;
  const parsed = schema.safeParse({ ...native, locks });
  if (!parsed.success) throw badRequest('Invalid metadata', parsed.error.issues.slice(0, 10));
  const { locks: parsedLocks, ...set } = parsed.data as Body & { locks?: Record<string, boolean> };
  return { set, locks: parsedLocks };
}

/** Komga's metadata updates (204), onto the native metadata service: same locks, history and rules. */
export function registerKomgaMetadataRoutes(app: App, komga: KomgaPresenter): void {
  const { metadata, series } = komga.services;

  app.route({
    method: 'PATCH',
    url: '/api/v1/series/:seriesId/metadata',
    config: komgaRoute('series-write'),
    schema: { ...hidden, summary: 'Update series metadata (Komga), with *Lock per field', params: SeriesParams, body: KomgaBody },
    handler: async (req, reply) => {
      const caller = callerOf(req);
      await metadata.edit(caller, 'series', [req.params.seriesId], toNative(req.body, SERIES_MAPPING, SeriesMetadataChanges));
      const labels = req.body.sharingLabels;
      if (labels !== undefined) {
        if (labels !== null && (!Array.isArray(labels) || labels.some((l) => typeof l !== 'string')))
          throw badRequest('sharingLabels must be strings');
        await series.update(caller, req.params.seriesId, { sharing_labels: (labels as string[] | null) ?? [] });
      }
      return reply.code(204).send();
    },
  });

  app.route({
    method: 'PATCH',
    url: '/api/v1/books/:bookId/metadata',
    config: komgaRoute('books-write'),
    schema: { ...hidden, summary: 'Update book metadata (Komga), with *Lock per field', params: BookParams, body: KomgaBody },
    handler: async (req, reply) => {
      await metadata.edit(callerOf(req), 'book', [req.params.bookId], toNative(req.body, BOOK_MAPPING, BookUpdate));
      return reply.code(204).send();
    },
  });

  app.route({
    method: 'PATCH',
    url: '/api/v1/books/metadata',
    config: komgaRoute('books-write'),
    schema: {
      ...hidden,
      summary: 'Update the metadata of many books (Komga): book id → update; one request, one undo group each change',
      body: z.record(Uuid, KomgaBody),
    },
    handler: async (req, reply) => {
      const caller = callerOf(req);
      const changes = Object.entries(req.body).map(([id, body]) => [id, toNative(body, BOOK_MAPPING, BookUpdate)] as const);
      for (const [id, change] of changes) await metadata.edit(caller, 'book', [id], change);
      return reply.code(204).send();
    },
  });
}
