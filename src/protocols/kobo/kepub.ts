import type { FastifyReply, FastifyRequest } from 'fastify';
import { ZipArchive } from '../../media/archives/zip-archive.js';
import { convertToKepub } from '../../media/kepub/kepubify.js';
import { positionOfSpan, readEpubDocument, spanAt, spanIndex, type SpanIndex } from '../../media/kepub/locations.js';
import { resolveLimits } from '../../media/limits.js';
import { getOrCreateCached } from '../../media/rendering/derived-cache.js';
import type { Caller } from '../../identity/index.js';
import { sendBookFile } from '../../catalog/index.js';
import type { BooksService } from '../../catalog/index.js';
import type { KoboBookRow, KoboService } from './devices/service.js';
import type { KoboLocation, KoboPosition } from './dto.js';
import { sendGeneratedEpub, type GeneratedEpub } from './send-generated-epub.js';

/** The cached KEPUB's name under the file's hash; a new conversion takes a new name, so old copies are not served. */
const KEPUB_VARIANT = 'kobo-kepub-1.kepub.epub';

/**
 * EPUBs delivered to a Kobo as KEPUB (media/kepub), and positions in them both ways: the span a Kobo reports
 * becomes a place the web reader opens at (a CFI), and a place read elsewhere the span the device opens at.
 */
export class KoboKepub {
  constructor(
    private readonly books: BooksService,
    private readonly kobo: KoboService,
    private readonly cacheDir: string,
  ) {}

  /**
   * The book as KEPUB, converted on the first download and kept in the derived cache under the file's content hash
   * (a changed file has another hash: converted again). An EPUB that cannot be converted goes as it is.
   */
  async send(req: FastifyRequest, reply: FastifyReply, caller: Caller, book: KoboBookRow): Promise<FastifyReply> {
    const file = await this.books.file(caller, book.id);
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
    let made: GeneratedEpub;
    try {
      if (!hash) made = { data: await produce() };
      else {
        const cached = await getOrCreateCached(this.cacheDir, hash, KEPUB_VARIANT, produce);
        made = cached.data ? { data: cached.data } : { path: cached.path, etag: `"${hash.slice(0, 40)}-${KEPUB_VARIANT}"` };
      }
    } catch (err) {
      // A file the converter cannot read (not the EPUB it looked like, a broken archive): the device gets it as it is,
      // and its card says so (the person looks there, not in the log). The reason names the file, not its server path.
      req.log.warn({ err, book_id: book.id }, 'The EPUB could not be converted to KEPUB; sent as it is');
      const reason = (err instanceof Error ? err.message : String(err)).split(file.absolutePath).join(file.fileName);
      await this.kobo.noteDelivery(caller, book.id, `Could not be converted to KEPUB (${reason}); sent as the plain EPUB.`);
      return sendBookFile(req, reply, file);
    }
    await this.kobo.noteDelivery(caller, book.id, null);
    return sendGeneratedEpub(req, reply, made, fileName);
  }

  /** The spans of the EPUB's document that `wanted` names, or null when the file or the document cannot be read. */
  private async index(caller: Caller, book: KoboBookRow, wanted: string): Promise<SpanIndex | null> {
    const limits = resolveLimits();
    let archive: ZipArchive;
    try {
      archive = await ZipArchive.open((await this.books.file(caller, book.id)).absolutePath, limits);
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

  /** A Kobo location (a span of a document) as the web reader's locator; null when it names no span of the book. */
  async locatorOf(caller: Caller, book: KoboBookRow, location: KoboPosition['location']): Promise<KoboPosition['locator'] | null> {
    if (location?.Type !== 'KoboSpan' || !location.Source || !location.Value) return null;
    const index = await this.index(caller, book, location.Source);
    const position = index && positionOfSpan(index, location.Value);
    if (!index || !position) return null;
    return { href: index.document.path, ...(position.cfi ? { cfi: position.cfi } : {}), progression: position.progression };
  }

  /**
   * The span of document `href` at a position read elsewhere (a CFI, else the share of the document read; neither:
   * its first span), as a Kobo location; null when the document has no spans.
   */
  async locationOf(
    caller: Caller,
    book: KoboBookRow,
    href: string,
    place: { cfi?: string | undefined; progression?: number | undefined },
  ): Promise<KoboLocation | null> {
    const index = await this.index(caller, book, href);
    const id = index && spanAt(index, place);
    return index && id ? { Value: id, Type: 'KoboSpan', Source: index.document.path } : null;
  }
}
