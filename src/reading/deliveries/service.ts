import type { BooksService } from '../../catalog/index.js';
import type { ImageLookup } from '../../http/send-image.js';
import type { Caller } from '../../identity/index.js';
import { ZipArchive } from '../../media/archives/zip-archive.js';
import { convertToKepub } from '../../media/kepub/kepubify.js';
import { positionOfSpan, readEpubDocument, spanAt, spanIndex, type SpanIndex } from '../../media/kepub/locations.js';
import { resolveLimits } from '../../media/limits.js';
import { loadSharp } from '../../media/native-modules.js';
import { getOrCreateCached } from '../../media/rendering/derived-cache.js';
import { buildFixedLayoutEpub, type FixedLayoutPage } from '../../media/rendering/fixed-layout-epub.js';
import { PAGE_SIZE_STEPS } from '../../media/rendering/page-sizes.js';
import type { PagesService } from '../pages/service.js';

/** A book as a delivery needs it (a Kobo's sync row fits it). */
export interface DeliveredBook {
  id: string;
  title: string;
  format: string;
  /** The content hash the scan read: it names the cached copies. */
  hash: string | null;
  language: string | null;
  number: string | null;
  series_name: string;
  page_count: number;
  cover_page: number | null;
  updated_at: string;
}

/** A generated EPUB: in memory, or a file in the derived cache with the ETag it is served under. */
export type GeneratedEpub = { data: Buffer } | { path: string; etag: string };

/** How a device wants comics: fitted inside its screen (never enlarged), in shades of grey or not. */
export interface ComicFit {
  screen: { width: number; height: number } | null;
  greyscale: boolean;
}

/** The cached KEPUB's name under the file's hash; a new conversion takes a new name, so old copies are not served. */
const KEPUB_VARIANT = 'kobo-kepub-1.kepub.epub';

/** The smallest step of the page-size ladder at or above `pixels`: a page asked at it is then fitted to the screen exactly. */
const stepAtLeast = (pixels: number): number => PAGE_SIZE_STEPS.find((step) => step >= pixels) ?? pixels;

/**
 * Books made for a reading device (a Kobo today): a comic or PDF as a fixed-layout EPUB fitted to the screen, an EPUB
 * as KEPUB with positions both ways between its spans and the web reader's CFIs, and covers at the device's size.
 * What is made is kept in the derived cache under the file's content hash (a changed file has another: made again).
 */
export class DeliveriesService {
  constructor(
    private readonly deps: {
      books: Pick<BooksService, 'file' | 'thumbnail'>;
      pages: Pick<PagesService, 'page'>;
      /** Where derived files are kept (next to resized pages). */
      cacheDir: string;
    },
  ) {}

  /**
   * The EPUB as KEPUB, converted on the first download. A file the converter cannot read (not the EPUB it looked
   * like, a broken archive) is answered as the plain file with the reason, naming the file, not its server path.
   */
  async kepub(
    caller: Caller,
    book: DeliveredBook,
  ): Promise<
    { epub: GeneratedEpub; fileName: string } | { plain: Awaited<ReturnType<BooksService['file']>>; reason: string; error: unknown }
  > {
    const file = await this.deps.books.file(caller, book.id);
    const fileName = `${file.fileName.replace(/\.(kepub\.)?epub$/i, '')}.kepub.epub`;
    const produce = async () => {
      const limits = resolveLimits();
      const archive = await ZipArchive.open(file.absolutePath, limits);
      try {
        return await convertToKepub(archive, limits, new Date(Date.parse(book.updated_at) || 0));
      } finally {
        archive.close();
      }
    };
    // The hash names the file only while it is the one the scan read (BooksService.file's ETag is then the hash).
    const hash = book.hash && file.etag === `"${book.hash}"` ? book.hash : null;
    try {
      if (!hash) return { epub: { data: await produce() }, fileName };
      const cached = await getOrCreateCached(this.deps.cacheDir, hash, KEPUB_VARIANT, produce);
      return {
        epub: cached.data ? { data: cached.data } : { path: cached.path, etag: `"${hash.slice(0, 40)}-${KEPUB_VARIANT}"` },
        fileName,
      };
    } catch (err) {
      const reason = (err instanceof Error ? err.message : String(err)).split(file.absolutePath).join(file.fileName);
      return { plain: file, reason, error: err };
    }
  }

  /** The spans of the EPUB's document that `wanted` names, or null when the file or the document cannot be read. */
  private async index(caller: Caller, book: DeliveredBook, wanted: string): Promise<SpanIndex | null> {
    const limits = resolveLimits();
    let archive: ZipArchive;
    try {
      archive = await ZipArchive.open((await this.deps.books.file(caller, book.id)).absolutePath, limits);
    } catch {
      return null; // gone since the scan, or unreadable: the position is kept without its mapping
    }
    try {
      const document = await readEpubDocument(archive, limits, wanted);
      return document && spanIndex(document);
    } catch {
      return null;
    } finally {
      archive.close();
    }
  }

  /** A KEPUB span (of document `source`) as the web reader's locator; null when it names no span of the book. */
  async locatorOfSpan(
    caller: Caller,
    book: DeliveredBook,
    source: string,
    span: string,
  ): Promise<{ href: string; cfi?: string; progression: number } | null> {
    const index = await this.index(caller, book, source);
    const position = index && positionOfSpan(index, span);
    if (!index || !position) return null;
    return { href: index.document.path, ...(position.cfi ? { cfi: position.cfi } : {}), progression: position.progression };
  }

  /**
   * The span of document `href` at a position read elsewhere (a CFI, else the share of the document read; neither:
   * its first span); null when the document has no spans.
   */
  async spanAt(
    caller: Caller,
    book: DeliveredBook,
    href: string,
    place: { cfi?: string | undefined; progression?: number | undefined },
  ): Promise<{ source: string; span: string } | null> {
    const index = await this.index(caller, book, href);
    const id = index && spanAt(index, place);
    return index && id ? { source: index.document.path, span: id } : null;
  }

  /** The cover at the size the device asks (never enlarged), as JPEG; comics from their cover page. */
  async cover(caller: Caller, book: DeliveredBook, width: number, height: number, grey: boolean): Promise<ImageLookup> {
    if (book.format !== 'epub')
      return this.deps.pages.page(caller, book.id, book.cover_page ?? 1, { width, height, format: 'jpeg', grayscale: grey });
    const thumbnail = await this.deps.books.thumbnail(caller, book.id, 'image/jpeg');
    const etag = `${thumbnail.etag.replace(/"$/, '')}-kobo-${width}x${height}${grey ? '-gray' : ''}"`;
    return {
      etag,
      load: async () => {
        const image = await thumbnail.load();
        const sharp = await loadSharp();
        let pipeline = sharp(image.data).resize({ width, height, fit: 'inside', withoutEnlargement: true });
        if (grey) pipeline = pipeline.grayscale();
        return { data: await pipeline.jpeg({ quality: 85 }).toBuffer(), mediaType: 'image/jpeg', etag };
      },
    };
  }

  /**
   * A page fitted inside the screen (never enlarged): the page service makes it at the ladder step above the
   * screen (a resize it caches and other readers share), then it is brought down to the screen exactly.
   */
  private async fittedPage(caller: Caller, book: DeliveredBook, n: number, fit: ComicFit): Promise<FixedLayoutPage> {
    const { screen, greyscale } = fit;
    const bounds = screen ? { width: stepAtLeast(screen.width), height: stepAtLeast(screen.height) } : {};
    const image = await (await this.deps.pages.page(caller, book.id, n, { ...bounds, format: 'jpeg', grayscale: greyscale }, true)).load();
    const page: FixedLayoutPage = { data: image.data, mediaType: image.mediaType === 'image/png' ? 'image/png' : 'image/jpeg' };
    if (!screen) return page;
    const sharp = await loadSharp();
    const meta = await sharp(page.data).metadata();
    const width = meta.autoOrient?.width ?? meta.width ?? 0;
    const height = meta.autoOrient?.height ?? meta.height ?? 0;
    if (width <= screen.width && height <= screen.height) return page;
    const data = await sharp(page.data)
      .rotate()
      .resize({ width: screen.width, height: screen.height, fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality: 85 })
      .toBuffer();
    return { data, mediaType: 'image/jpeg' };
  }

  /** A comic or PDF as a fixed-layout EPUB: one page per image, fitted to the screen, made on the first download. */
  async fixedLayoutEpub(
    caller: Caller,
    book: DeliveredBook,
    authors: string[],
    fit: ComicFit,
  ): Promise<{ epub: GeneratedEpub; fileName: string }> {
    const { screen, greyscale } = fit;
    const variant = `kobo-epub3fl-${screen ? `w${screen.width}-h${screen.height}` : 'original'}${greyscale ? '-gray' : ''}.epub`;
    const fileName = `${book.title.replace(/[/\\]/g, '_') || book.id}.epub`;
    const produce = async (): Promise<Buffer> => {
      const images: FixedLayoutPage[] = [];
      for (let n = 1; n <= book.page_count; n++) images.push(await this.fittedPage(caller, book, n, fit));
      return buildFixedLayoutEpub(
        {
          id: book.id,
          title: book.title,
          language: book.language ?? 'en',
          authors,
          series: { name: book.series_name, number: book.number },
          modified: book.updated_at,
        },
        images,
      );
    };
    if (!book.hash) return { epub: { data: await produce() }, fileName };
    const cached = await getOrCreateCached(this.deps.cacheDir, book.hash, variant, produce);
    const etag = `"${book.hash.slice(0, 40)}-${variant}"`;
    return { epub: cached.data ? { data: cached.data } : { path: cached.path, etag }, fileName };
  }
}
