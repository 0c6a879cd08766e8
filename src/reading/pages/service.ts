import { readFile } from 'node:fs/promises';
import { getOrCreateCached, recordDerivedCacheHit, type CachedFile } from '../../media/rendering/derived-cache.js';
import type { DerivedCacheBudget } from '../../media/rendering/derived-cache-budget.js';
import { isMediaError, publicMediaMessage, type MediaError } from '../../media/errors.js';
import { sniffImageType } from '../../media/images/image-types.js';
import { placeholderCover, placeholderLabel } from '../../media/rendering/placeholder-cover.js';
import { convertedFormatFor } from '../../media/images/images.js';
import { renderPage } from '../../media/rendering/render-page.js';
import { getThumbnail, thumbnailFormatFor } from '../../media/rendering/thumbnails.js';
import type { BookFormat, PageInfo } from '../../media/types.js';
import { AppError, badRequest, notFound } from '../../http/errors.js';
import type { ImageLookup } from '../../http/send-image.js';
import type { AccessService, Caller } from '../../identity/index.js';
import { type BooksRepository, type BookWithLibrary, resolveBookFile } from '../../catalog/index.js';
import { DerivedImagesInMemory } from './derived-memory.js';
import { grayscaleImage } from './grayscale.js';
import { effectiveBound, type PageRequestOptions } from '../../media/rendering/page-sizes.js';
import type { IsolatedRenderer } from '../../media/analysis/isolated-renderer.js';
import type { ReaderPool } from './reader-pool.js';
import { RecentBookFiles } from './recent-files.js';
import { StoredPages } from './stored-pages.js';
import { parseJsonColumn } from '../../db/json-column.js';

export type { PageRequestOptions } from '../../media/rendering/page-sizes.js';

export type { ImageLookup } from '../../http/send-image.js';

export interface PagesDeps {
  books: BooksRepository;
  /** The book the caller may see. */
  access: AccessService<BookWithLibrary>;
  readers: ReaderPool;
  /** PDF and CBR pages and covers, made in worker threads. */
  renderer: IsolatedRenderer;
  /** Folder of derived images (resized pages, thumbnails) under data_dir. */
  cacheDir: string;
  /** Read per request: the admin setting `thumbnail_width` changes it at runtime. */
  thumbnailWidth: () => number;
  /** Keeps the resized pages under cacheDir within their size budget. */
  derivedBudget: DerivedCacheBudget;
}

function mediaFailure(err: MediaError): AppError {
  if (err.kind === 'not_found') return notFound('Page', { reason: publicMediaMessage(err) });
  if (err.kind === 'too_large')
    return new AppError(413, 'PayloadTooLarge', `The image is too large to process: ${publicMediaMessage(err)}`);
  // The file is fine; the server could not read it just now (descriptors exhausted, a handle closed).
  if (err.kind === 'unavailable') {
    return new AppError(
      503,
      'ServiceUnavailable',
      'The book could not be read just now; retry shortly',
      { reason: publicMediaMessage(err) },
      { 'Retry-After': '1' },
    );
  }
  return new AppError(422, 'UnprocessableEntity', `The book cannot be read: ${publicMediaMessage(err)}`, { kind: err.kind });
}

/** Runs a media read; a failure of the server's (not the book's) is retried once before it becomes a 503. */
async function mediaCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    try {
      return await fn();
    } catch (err) {
      if (!isMediaError(err) || err.kind !== 'unavailable') throw err;
      return await fn();
    }
  } catch (err) {
    throw isMediaError(err) ? mediaFailure(err) : err;
  }
}

/** A book with pages to show: analysed without error into at least one page. */
function isReadable(book: BookWithLibrary): book is BookWithLibrary & { hash: string } {
  return book.hash !== null && book.analysis_error === null && Number(book.page_count) > 0;
}

/** A stored page list as the API shows it (older rows may lack numbers and sizes). */
function pageInfos(text: string): PageInfo[] {
  return parsePages(text).map((p, i) => ({
    number: p.number ?? i + 1,
    file_name: p.file_name,
    media_type: p.media_type,
    width: p.width ?? null,
    height: p.height ?? null,
    size: p.size ?? 0,
  }));
}

export function parsePages(text: string): PageInfo[] {
  return parseJsonColumn<PageInfo[]>(text, [], (value) => (Array.isArray(value) ? (value as PageInfo[]) : undefined));
}

/** A page's bytes; `release` gives a pooled buffer back once they are sent (StoredPage). */
type PageBytes = { data: Buffer; mediaType: string; release?: () => void };

/** Page lists, page images (original or resized, cached on disk), and covers. */
export class PagesService {
  private readonly recentFiles = new RecentBookFiles();
  private readonly derived = new DerivedImagesInMemory();
  private readonly storedPages = new StoredPages();
  private readonly pageSource = (id: string) => this.deps.books.pageSource(id);

  constructor(private readonly deps: PagesDeps) {}

  async list(caller: Caller, bookId: string): Promise<PageInfo[]> {
    return pageInfos((await this.deps.access.book(caller, bookId)).pages);
  }

  /** The page lists of several books the caller can see (missing or hidden books are left out), in one query. */
  async listMany(caller: Caller, bookIds: readonly string[]): Promise<Map<string, PageInfo[]>> {
    const out = new Map<string, PageInfo[]>();
    for (const book of await this.deps.access.visible(caller, await this.deps.books.pagesOf(bookIds)))
      out.set(book.id, pageInfos(book.pages));
    return out;
  }

  /**
   * Page `n` (1-based). Without options the original bytes go out with their own media type; with width,
   * height or format the page is resized (never enlarged, sizes snapped down to PAGE_SIZE_STEPS) and converted,
   * and the result is cached on disk by the book's content hash within a size budget (and the most recent ones
   * in memory). The ETag is known before anything is read,
   * so a 304 costs one query.
   *
   * A page that is a document (a reflowable EPUB's XHTML) has no image to resize or convert: asking for one is a
   * 400, as is asking for it at all with `imagesOnly` (image-only APIs such as Komga's, whose clients would show
   * the XHTML as a broken picture).
   */
  async page(caller: Caller, bookId: string, n: number, options: PageRequestOptions, imagesOnly = false): Promise<ImageLookup> {
    // Only what serving a page needs of the book, read afresh (no cache whose size a large library outgrows).
    const book = await this.deps.access.bookWith(caller, bookId, this.pageSource);
    if (!Number.isInteger(n) || n < 1 || n > Number(book.page_count)) {
      throw notFound('Page', { page_number: n, page_count: Number(book.page_count) });
    }
    const grayscale = options.grayscale === true;
    const transformed = options.width !== undefined || options.height !== undefined || options.format !== undefined || grayscale;
    // The page list (a JSON document of every page) is parsed only when needed: not for the original bytes of a
    // page whose place in the file is known, the usual page request.
    let parsed: PageInfo[] | undefined;
    const stored = (): PageInfo[] => (parsed ??= parsePages(book.pages));
    let names: string[] | undefined;
    const knownPages = (): string[] => (names ??= stored().map((p) => p.file_name));
    const storedPage = transformed || imagesOnly ? stored()[n - 1] : undefined;
    const storedType = storedPage?.media_type;
    if (storedType !== undefined && !storedType.startsWith('image/') && (transformed || imagesOnly)) {
      throw badRequest(
        `Page ${n} of this book is a ${storedType} document, not an image: it cannot be served as a picture, resized or converted`,
        {
          page_number: n,
          media_type: storedType,
        },
      );
    }
    // PDF pages are drawn at the size asked, so their stored (default rendering) size does not cap a request.
    const drawn = book.format === 'pdf';
    const width = effectiveBound(options.width, storedPage?.width, drawn);
    const height = effectiveBound(options.height, storedPage?.height, drawn);
    // A page browsers do not show (BMP, AVIF, Netpbm) is always converted when a transform is asked, even when no
    // bound is left (the request is at or above its size): otherwise its stored bytes would go out as they are.
    const format = options.format ?? (transformed && storedType?.startsWith('image/') ? convertedFormatFor(storedType) : undefined);
    const size: PageRequestOptions = { ...(width ? { width } : {}), ...(height ? { height } : {}), ...(format ? { format } : {}) };
    // `own`: the page's own format when it has a resized form (GIF stays GIF); it was `auto` while a resized GIF
    // became PNG, and the new name keeps those cached PNGs (and their ETags) from being served again.
    const variant = transformed ? `page-${n}-w${width ?? 0}-h${height ?? 0}-${format ?? 'own'}${grayscale ? '-gray' : ''}` : `page-${n}`;
    const version = book.hash ?? `${book.size}-${book.mtime_ms}`;
    const etag = `"${version.slice(0, 40)}-${variant}"`;
    const read = async (): Promise<PageBytes> => {
      const page = await readPage();
      return grayscale ? { data: await mediaCall(() => grayscaleImage(page.data)), mediaType: page.mediaType } : page;
    };
    const readPage = async (): Promise<PageBytes> => {
      const format = book.format;
      // The original bytes of a page stored as it is: read straight from the file once its place is known.
      if (!transformed && format === 'cbz') {
        const known = await this.storedPages.read(`${book.library_path}\0${book.path}`, n, {
          file: () => this.recentFiles.resolve(book),
          pageNames: async () => knownPages(),
        });
        if (known) return known;
      }
      const file = await this.recentFiles.resolve(book);
      if (this.deps.renderer.handles(format))
        return mediaCall(() => this.deps.renderer.renderPage(file.absolutePath, format, n, { ...size, knownPages: knownPages() }));
      return mediaCall(() =>
        this.deps.readers.use(file, (format ?? undefined) as BookFormat | undefined, knownPages(), (reader) => renderPage(reader, n, size)),
      );
    };
    return {
      etag,
      load: async () => {
        if (!transformed || !book.hash) return { ...(await read()), etag };
        const hash = book.hash;
        const remembered = this.derived.get(hash, variant);
        if (remembered) {
          recordDerivedCacheHit();
          return { ...remembered, etag };
        }
        const { cached, data } = await this.cachedImage(hash, variant, read);
        if (cached.data === undefined) {
          if (cached.generated) await this.deps.derivedBudget.added(cached.path);
          else this.deps.derivedBudget.touched(cached.path);
        }
        const image = { data, mediaType: sniffImageType(data) ?? 'application/octet-stream' };
        this.derived.set(hash, variant, image);
        return { ...image, etag };
      },
    };
  }

  /**
   * A derived image from the disk cache, made by `read` when missing. The budget may evict the file between the
   * lookup and the read (another request's write): the lookup is made again, and once this call has produced
   * the image itself, those bytes go out whatever happened to the file since.
   */
  private async cachedImage(
    hash: string,
    variant: string,
    read: () => Promise<{ data: Buffer }>,
  ): Promise<{ cached: CachedFile; data: Buffer }> {
    let produced: Buffer | undefined;
    for (let attempt = 1; ; attempt++) {
      const cached = await mediaCall(() =>
        getOrCreateCached(this.deps.cacheDir, hash, variant, async () => {
          produced = (await read()).data;
          return produced;
        }),
      );
      // `data` is set when the cache could not be written (disk full): the image goes out uncached.
      if (cached.data !== undefined) return { cached, data: cached.data };
      try {
        return { cached, data: await readFile(cached.path) };
      } catch (err) {
        if ((err as { code?: unknown }).code !== 'ENOENT') throw err;
        if (produced !== undefined) return { cached: { ...cached, data: produced }, data: produced };
        // Evicted again and again under another's production: make it here, uncached.
        if (attempt >= 3) {
          const { data } = await read();
          return { cached: { ...cached, data }, data };
        }
      }
    }
  }

  /**
   * The cover at thumbnail size (WebP for clients that accept it, else JPEG), cached by content hash. A book
   * with nothing to show (its analysis failed, or it has no readable page) gets a placeholder naming its format
   * and "unreadable": feeds and apps link every book's cover, and a broken image tells the reader less.
   */
  async thumbnail(book: BookWithLibrary, accept: string | undefined): Promise<ImageLookup> {
    const imageFormat = thumbnailFormatFor(accept);
    const width = this.deps.thumbnailWidth();
    if (!isReadable(book)) {
      // Names what it shows, so the ETag changes when the book is re-analysed and becomes readable.
      const etag = `"unreadable-${placeholderLabel(book.format).toLowerCase()}-thumb-${width}-${imageFormat}"`;
      return { etag, load: async () => ({ ...(await placeholderCover(book.format, width, imageFormat)), etag }) };
    }
    const hash = book.hash;
    const etag = `"${hash.slice(0, 40)}-thumb-${width}-${imageFormat}"`;
    return {
      etag,
      load: async () => {
        const file = await resolveBookFile(book);
        const format = book.format;
        const renderer = this.deps.renderer;
        const thumb = await mediaCall(() =>
          getThumbnail({
            cacheDir: this.deps.cacheDir,
            hash,
            path: file.absolutePath,
            format: (format ?? undefined) as BookFormat | undefined,
            width,
            imageFormat,
            ...(renderer.handles(format) ? { readCover: (size) => renderer.cover(file.absolutePath, format, size) } : {}),
          }).catch((err: unknown) => {
            // A readable book with no cover image (a text EPUB without one): every screen and feed links its
            // cover, so it gets the format's placeholder rather than a 404 each of them logs.
            if (isMediaError(err) && err.kind === 'not_found') return null;
            throw err;
          }),
        );
        if (thumb === null) return { ...(await placeholderCover(format, width, imageFormat, false)), etag };
        return { data: thumb.data ?? (await readFile(thumb.path)), mediaType: thumb.mediaType, etag };
      },
    };
  }
}
