import path from 'node:path';
import { isMediaError, publicMediaMessage } from '../../media/errors.js';
import { imageTypeFromName } from '../../media/images/image-types.js';
import { resolveLimits } from '../../media/limits.js';
import { parseContainer, parseOpf, type OpfPackage } from '../../media/metadata/opf.js';
import { ZipArchive } from '../../media/archives/zip-archive.js';
import { AppError, badRequest, notFound } from '../../http/errors.js';
import type { AccessService, Caller, DeviceHint } from '../../identity/index.js';
import { type BookWithLibrary, resolveBookFile } from '../../catalog/index.js';
import type { PagesService } from '../pages/service.js';
import type { ProgressService } from '../progress/service.js';
import { parseJsonColumnOrThrow } from '../../db/json-column.js';

export interface BookResourceEntry {
  path: string;
  media_type: string;
  size: number;
}

export interface BookResource {
  data: Buffer;
  mediaType: string;
  etag: string;
}

/** A position inside a reflowable book as a reader keeps it: the section, a CFI, and the share read. */
export interface Locator {
  href: string;
  cfi?: string | undefined;
  /** Share of the section read, 0..1. */
  progression?: number | undefined;
}

export interface LocatorUpdate {
  locator: Locator;
  /** Share of the whole book read, 0..1. */
  percentage: number;
  /** When the reader was there (a position sent late); older than the current position: history only. */
  recorded_at?: string;
  /** The client's own id of the position (sent again after a lost answer: recorded once). */
  entry_id?: string;
}

export interface LocatorView {
  book_id: string;
  locator: Locator | null;
  percentage: number;
  current_page: number;
  page_count: number;
  is_completed: boolean;
  updated_at: string;
}

/** Extensions of the files an EPUB carries besides its images, for members its package document does not list. */
const TYPE_BY_EXTENSION: Record<string, string> = {
  '.xhtml': 'application/xhtml+xml',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.css': 'text/css',
  '.xml': 'application/xml',
  '.opf': 'application/oebps-package+xml',
  '.ncx': 'application/x-dtbncx+xml',
  '.svg': 'image/svg+xml',
  '.js': 'text/javascript',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.mp3': 'audio/mpeg',
  '.mp4': 'video/mp4',
  '.txt': 'text/plain',
  '.smil': 'application/smil+xml',
};

/** A book past this share counts as read through: the reader's last screen rarely reports exactly 1. */
const COMPLETED_AT = 0.995;

const ZIP_FORMATS = new Set(['epub', 'cbz']);

/**
 * The files inside a book's archive, served by their path for a reader that lays the book out itself (an
 * EPUB engine in the browser, an OPDS 2 / Readium client): the same access checks as its pages, the media types
 * its package document declares. Also the reader's position inside a reflowable book (a locator), kept in the
 * progress history next to the page-based progress every other client sees.
 */
export class BookResourcesService {
  constructor(
    private readonly access: AccessService<BookWithLibrary>,
    private readonly pages: PagesService,
    private readonly progress: ProgressService,
  ) {}

  private async open<T>(
    caller: Caller,
    bookId: string,
    use: (archive: ZipArchive, opf: OpfPackage | null, book: BookWithLibrary) => Promise<T>,
  ): Promise<T> {
    const book = await this.access.book(caller, bookId);
    if (!book.format || !ZIP_FORMATS.has(book.format)) {
      throw badRequest(
        book.format
          ? `This book is a ${book.format}: only EPUB and CBZ books are served by resource`
          : 'This book is a file of unknown format: only EPUB and CBZ books are served by resource',
        {
          format: book.format,
        },
      );
    }
    const file = await resolveBookFile(book);
    const limits = resolveLimits();
    let archive: ZipArchive;
    try {
      archive = await ZipArchive.open(file.absolutePath, limits);
    } catch (err) {
      throw isMediaError(err)
        ? new AppError(422, 'UnprocessableEntity', `The book cannot be read: ${publicMediaMessage(err)}`, { kind: err.kind })
        : err;
    }
    try {
      return await use(archive, book.format === 'epub' ? await packageOf(archive, limits.maxXmlBytes) : null, book);
    } finally {
      archive.close();
    }
  }

  async list(caller: Caller, bookId: string): Promise<BookResourceEntry[]> {
    return this.open(caller, bookId, async (archive, opf) => {
      const types = declaredTypes(opf);
      return archive.members.map((member) => ({ path: member.name, media_type: mediaTypeOf(member.name, types), size: member.size }));
    });
  }

  async resource(caller: Caller, bookId: string, resourcePath: string): Promise<BookResource> {
    // The router has decoded the path once already: decoding again would turn a file named `100%.png` (asked as
    // `100%25.png`) into an error, and `a%20b` into another file's name.
    const name = resourcePath.replace(/^\/+/, '');
    return this.open(caller, bookId, async (archive, opf, book) => {
      const member = archive.get(name);
      if (!member) throw notFound('Resource', { path: name });
      if (name === 'META-INF/encryption.xml' || member.encrypted)
        throw new AppError(403, 'Forbidden', 'This resource is encrypted', { path: name });
      let data: Buffer;
      try {
        data = await archive.read(member);
      } catch (err) {
        throw isMediaError(err)
          ? new AppError(422, 'UnprocessableEntity', `The resource cannot be read: ${publicMediaMessage(err)}`, { kind: err.kind })
          : err;
      }
      const version = (book.hash ?? `${book.size}-${book.mtime_ms}`).slice(0, 40);
      return {
        data,
        mediaType: mediaTypeOf(name, declaredTypes(opf)),
        etag: `"${version}-res-${Buffer.from(name).toString('base64url').slice(0, 80)}"`,
      };
    });
  }

  /**
   * A Readium Web Publication Manifest of an EPUB: its reading order and resources pointing at the resource
   * endpoint, so streaming clients (OPDS 2, Readium) read it without downloading the file.
   */
  async manifest(caller: Caller, bookId: string, baseUrl: string): Promise<Record<string, unknown>> {
    return this.open(caller, bookId, async (archive, opf, book) => {
      if (!opf) throw badRequest('Only EPUB books have a publication manifest', { format: book.format });
      const href = (p: string) => `${baseUrl}/api/v1/books/${book.id}/resource/${p.split('/').map(encodeURIComponent).join('/')}`;
      const link = (item: { path: string; mediaType: string; properties: string[] }) => ({
        href: href(item.path),
        type: item.mediaType,
        ...(item.properties.length > 0 ? { properties: { contains: item.properties } } : {}),
        ...(item.properties.includes('nav') ? { rel: 'contents' } : {}),
      });
      const spine = new Set(opf.spine.map((item) => item.path));
      return {
        '@context': 'https://readium.org/webpub-manifest/context.jsonld',
        metadata: {
          '@type': 'http://schema.org/Book',
          title: book.title,
          ...(opf.fields.language ? { language: opf.fields.language } : {}),
          ...(opf.fields.reading_direction === 'rtl' ? { readingProgression: 'rtl' } : {}),
          ...(opf.fixedLayout ? { presentation: { layout: 'fixed' } } : {}),
        },
        links: [{ rel: 'self', href: `${baseUrl}/api/v1/books/${book.id}/manifest`, type: 'application/webpub+json' }],
        readingOrder: opf.spine.map(link),
        resources: [...opf.manifest.values()].filter((item) => !spine.has(item.path) && archive.get(item.path)).map(link),
      };
    });
  }

  async locator(caller: Caller, bookId: string): Promise<LocatorView> {
    const found = await this.progress.position(caller, bookId);
    if (!found) throw notFound('Progress', { book_id: bookId });
    const { progress, event } = found;
    const position = event ? parseJsonColumnOrThrow<{ locator?: Locator }>(event.position) : {};
    return {
      book_id: bookId,
      locator: position.locator ?? null,
      percentage: event ? Number(event.percentage) : progress.progress,
      current_page: progress.current_page,
      page_count: progress.page_count,
      is_completed: progress.is_completed,
      updated_at: progress.updated_at,
    };
  }

  /**
   * Saves a reflowable book's position: the page-based progress becomes the section's place in the reading
   * order (so lists and other clients show it), and the locator and share read go into the history, whose
   * newest entry is the position. A share past COMPLETED_AT finishes the book; entering the last section does not.
   */
  async saveLocator(caller: Caller, bookId: string, input: LocatorUpdate, hint: DeviceHint): Promise<LocatorView> {
    const book = await this.access.book(caller, bookId);
    const pages = await this.pages.list(caller, bookId);
    const href = input.locator.href.split('#')[0] ?? '';
    const index = pages.findIndex((page) => page.file_name === href);
    const pageCount = Number(book.page_count);
    const page = index >= 0 ? index + 1 : Math.min(pageCount, Math.max(1, Math.ceil(input.percentage * pageCount)));
    const completed = input.percentage >= COMPLETED_AT;
    await this.progress.update(caller, bookId, { current_page: page, is_completed: completed }, hint, {
      protocol: 'colophon',
      position: { locator: input.locator, percentage: input.percentage },
      percentage: completed ? 1 : input.percentage,
      ...(input.recorded_at ? { clientAt: input.recorded_at } : {}),
      ...(input.entry_id ? { entryId: input.entry_id } : {}),
    });
    return this.locator(caller, bookId);
  }
}

async function packageOf(archive: ZipArchive, maxXmlBytes: number): Promise<OpfPackage | null> {
  try {
    const container = archive.get('META-INF/container.xml');
    const opfPath = container
      ? parseContainer(await archive.readText(container, maxXmlBytes))
      : archive.members.find((m) => m.name.toLowerCase().endsWith('.opf'))?.name;
    const member = opfPath ? archive.get(opfPath) : undefined;
    return member && opfPath ? parseOpf(await archive.readText(member, maxXmlBytes), opfPath) : null;
  } catch {
    // A broken package document leaves the files served, typed by their extensions.
    return null;
  }
}

function declaredTypes(opf: OpfPackage | null): Map<string, string> {
  return new Map([...(opf?.manifest.values() ?? [])].map((item) => [item.path, item.mediaType]));
}

function mediaTypeOf(name: string, declared: Map<string, string>): string {
  if (name === 'mimetype') return 'text/plain';
  return declared.get(name) ?? imageTypeFromName(name) ?? TYPE_BY_EXTENSION[path.extname(name).toLowerCase()] ?? 'application/octet-stream';
}
