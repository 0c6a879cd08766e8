import { createHash } from 'node:crypto';
import { access, readFile } from 'node:fs/promises';
import type { EventBus } from '../../events/bus.js';
import { AppError, badRequest, conflict } from '../../http/errors.js';
import type { ImageLookup } from '../../http/send-image.js';
import { isMediaError, publicMediaMessage } from '../../media/errors.js';
import { sniffImageType } from '../../media/images/image-types.js';
import { MEDIA_TYPE_BY_FORMAT, resizeImage } from '../../media/images/images.js';
import { loadSharp } from '../../media/native-modules.js';
import { cachedPath, getOrCreateCached, removeCachedForHash, writeAtomically } from '../../media/rendering/derived-cache.js';
import { thumbnailFormatFor, thumbnailVariant, type ThumbnailFormat } from '../../media/rendering/thumbnails.js';
import type { AccessService, Caller } from '../../identity/index.js';
import type { BookWithLibrary } from '../books/repository.js';
import type { CoverTarget, CustomCoverRow, CustomCoversRepository, NewCustomCover } from './custom-repository.js';

export type { CoverTarget } from './custom-repository.js';

/** The largest upload taken (a scan of a cover at print resolution is a few MB). */
export const COVER_MAX_BYTES = 10 * 1024 * 1024;
/** Pixels an uploaded or chosen image may declare: 50 Mpx is a 600 dpi scan of a large cover; more is a bomb. */
export const COVER_MAX_PIXELS = 50_000_000;
/** Uploads taken: what browsers and cameras produce for a picture. */
export const COVER_UPLOAD_TYPES = ['image/jpeg', 'image/png', 'image/webp'];
/** The stored image fits in this box: larger than any screen shows a cover, and bounded on disk. */
const STORED_BOX = { width: 2400, height: 3600 };
const STORED_VARIANT = 'cover.webp';

/** A cover as the API shows it. */
export interface CoverView {
  /** `generated`: made from the files (the first page); `upload` or `page`: chosen by a person. */
  source: 'generated' | 'upload' | 'page';
  book_id: string | null;
  page: number | null;
  width: number | null;
  height: number | null;
  updated_at: string | null;
}

/** A cover as its history entries describe it (`before` / `after` of the field `cover`). */
export type CoverState =
  | { source: 'generated' }
  | { source: 'page'; book_id: string | null; page: number | null; image_hash: string }
  | { source: 'upload'; image_hash: string };

/** The order and group of history entries written together (an undo's). */
export interface CoverHistoryGroup {
  groupId: string;
  now: string;
  seq: () => number;
}

/** Where cover changes are recorded: the metadata history, so they are listed and undone like any change. */
export interface CoverHistory {
  record(target: CoverTarget, change: { before: CoverState; after: CoverState; userId: string; group?: CoverHistoryGroup }): Promise<void>;
  /** Whether a history entry names this image: it is kept while one does, so that undo can restore it. */
  namesImage(hash: string): Promise<boolean>;
}

/** What a cover chosen from a page needs of reading's pages. */
export interface CoverPages {
  page(caller: Caller, bookId: string, n: number, options: Record<string, never>, imagesOnly: boolean): Promise<ImageLookup>;
}

export interface CustomCoverDeps {
  history: CoverHistory;
  repo: CustomCoversRepository;
  access: AccessService<BookWithLibrary>;
  /** A page of a book as an image, for a cover chosen from a page (reading/pages fills it in). */
  pages: CoverPages;
  bus: EventBus;
  /** `<data_dir>/covers`: the chosen images are the user's data, not a cache to be cleaned. */
  dir: string;
  thumbnailWidth: () => number;
  /** Told once per image that is chosen but gone from `dir` (a data folder restored or moved without it). */
  reportMissing?: (target: CoverTarget, file: string) => void;
}

/** The new cover: an uploaded image, or a page of a book the caller sees. */
export type CoverInput = { upload: Buffer } | { book_id: string; page: number };

function stateOf(row: Pick<CustomCoverRow, 'source' | 'source_book_id' | 'source_page' | 'image_hash'> | undefined | null): CoverState {
  if (!row) return { source: 'generated' };
  if (row.source === 'page') return { source: 'page', book_id: row.source_book_id, page: row.source_page, image_hash: row.image_hash };
  return { source: 'upload', image_hash: row.image_hash };
}

/** A history value read back (JSON written by `stateOf`; anything else is not a cover). */
function parseState(value: unknown): CoverState | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (v.source === 'generated') return { source: 'generated' };
  if (typeof v.image_hash !== 'string' || !/^[0-9a-f]{64}$/.test(v.image_hash)) return null;
  if (v.source === 'upload') return { source: 'upload', image_hash: v.image_hash };
  if (v.source === 'page')
    return {
      source: 'page',
      book_id: typeof v.book_id === 'string' ? v.book_id : null,
      page: typeof v.page === 'number' ? v.page : null,
      image_hash: v.image_hash,
    };
  return null;
}

function view(row: CustomCoverRow | undefined): CoverView {
  if (!row) return { source: 'generated', book_id: null, page: null, width: null, height: null, updated_at: null };
  return {
    source: row.source === 'page' ? 'page' : 'upload',
    book_id: row.source_book_id,
    page: row.source_page,
    width: row.width,
    height: row.height,
    updated_at: row.updated_at,
  };
}

/** An image that cannot be a cover: a 4xx that says why (never the decoder's 500). */
function refusal(err: unknown): unknown {
  if (!isMediaError(err)) return err;
  if (err.kind === 'too_large')
    return new AppError(413, 'PayloadTooLarge', `The image is too large: ${publicMediaMessage(err)}`, {
      max_pixels: COVER_MAX_PIXELS,
    });
  if (err.kind === 'timeout' || err.kind === 'unavailable') return err;
  return new AppError(422, 'UnprocessableEntity', `The image cannot be decoded: ${publicMediaMessage(err)}`, { kind: err.kind });
}

/**
 * Covers chosen by a person for a series or a book. The image (uploaded, or a page) is decoded and re-encoded
 * once, so what is served is never the bytes sent; it is stored by content hash under `<data_dir>/covers`, its
 * thumbnails beside it, and removed with the last cover and history entry naming it. Changes are recorded in the
 * metadata history (field `cover`) and undone through it (`restore`). Thumbnails, OPDS and the Komga layer read it
 * through `thumbnail` / `full` (the books and series services ask before drawing the generated cover).
 */
export class CustomCoverService {
  constructor(private readonly deps: CustomCoverDeps) {}

  /** The target the caller may see (404 otherwise), with its library and series for the event. */
  private async target(caller: Caller, target: CoverTarget): Promise<{ library_id: string; series_id: string; book_id?: string }> {
    if (target.kind === 'series') {
      const series = await this.deps.access.series(caller, target.id);
      return { library_id: series.library_id, series_id: series.id };
    }
    const book = await this.deps.access.book(caller, target.id);
    return { library_id: book.library_id, series_id: book.series_id, book_id: book.id };
  }

  async get(caller: Caller, target: CoverTarget): Promise<CoverView> {
    await this.target(caller, target);
    return view(await this.deps.repo.get(target));
  }

  async set(caller: Caller, target: CoverTarget, input: CoverInput): Promise<CoverView> {
    const where = await this.target(caller, target);
    const source = 'upload' in input ? await this.uploaded(input.upload) : await this.pageImage(caller, input.book_id, input.page);
    const image = await this.store(source);
    await this.replace(target, where, caller.user.id, {
      image_hash: image.hash,
      source: 'upload' in input ? 'upload' : 'page',
      source_book_id: 'upload' in input ? null : input.book_id,
      source_page: 'upload' in input ? null : input.page,
      width: image.width,
      height: image.height,
      updated_by: caller.user.id,
      updated_at: new Date().toISOString(),
    });
    return view(await this.deps.repo.get(target));
  }

  /** Back to the generated cover. */
  async remove(caller: Caller, target: CoverTarget): Promise<CoverView> {
    const where = await this.target(caller, target);
    await this.replace(target, where, caller.user.id, null);
    return view(undefined);
  }

  /**
   * Undo: puts back the cover a history entry describes, recorded in the undo's group. 409 when its image is gone
   * (images named by history are kept, so only a pruned or lost entry's).
   */
  async restore(caller: Caller, target: CoverTarget, value: unknown, group: CoverHistoryGroup): Promise<void> {
    const where = await this.target(caller, target);
    const state = parseState(value);
    if (!state) throw conflict('This history entry does not describe a cover that can be restored');
    if (state.source === 'generated') return this.replace(target, where, caller.user.id, null, group);
    const stored = cachedPath(this.deps.dir, state.image_hash, STORED_VARIANT);
    try {
      await access(stored);
    } catch {
      throw conflict('The image of that cover no longer exists, so it cannot be restored; choose the cover again', {
        image_hash: state.image_hash,
      });
    }
    const sharp = await loadSharp();
    const { width, height } = await sharp(stored).metadata();
    await this.replace(
      target,
      where,
      caller.user.id,
      {
        image_hash: state.image_hash,
        source: state.source,
        source_book_id: state.source === 'page' ? state.book_id : null,
        source_page: state.source === 'page' ? state.page : null,
        width: width ?? 0,
        height: height ?? 0,
        updated_by: caller.user.id,
        updated_at: group.now,
      },
      group,
    );
  }

  /**
   * Sets (or with null removes) the target's cover, records the change in the history (before the old image is
   * let go, so that the entry keeps it), then tells thumbnails, OPDS, Komga and open screens.
   */
  private async replace(
    target: CoverTarget,
    where: { library_id: string; series_id: string; book_id?: string },
    userId: string,
    next: NewCustomCover | null,
    group?: CoverHistoryGroup,
  ): Promise<void> {
    const previous = next ? await this.deps.repo.put(target, next) : await this.deps.repo.remove(target);
    const before = stateOf(previous);
    const after = stateOf(next);
    if (JSON.stringify(before) === JSON.stringify(after)) return;
    await this.deps.history.record(target, { before, after, userId, ...(group ? { group } : {}) });
    await this.forget(previous, next?.image_hash);
    this.changed(where);
  }

  private readonly reportedMissing = new Set<string>();

  /**
   * The chosen cover whose stored image is there; undefined otherwise, so the cover made from the files is shown
   * instead of an error when the image is gone from the data folder (reported once per image).
   */
  private async present(target: CoverTarget): Promise<CustomCoverRow | undefined> {
    const row = await this.deps.repo.get(target);
    if (!row) return undefined;
    const file = cachedPath(this.deps.dir, row.image_hash, STORED_VARIANT);
    if (
      await access(file).then(
        () => true,
        () => false,
      )
    )
      return row;
    if (!this.reportedMissing.has(row.image_hash)) {
      this.reportedMissing.add(row.image_hash);
      this.deps.reportMissing?.(target, file);
    }
    return undefined;
  }

  /** The chosen cover at thumbnail size (WebP when accepted, else JPEG), or null for the generated one. */
  async thumbnail(target: CoverTarget, accept: string | undefined): Promise<ImageLookup | null> {
    const row = await this.present(target);
    if (!row) return null;
    const format: ThumbnailFormat = thumbnailFormatFor(accept);
    const width = this.deps.thumbnailWidth();
    const hash = row.image_hash;
    const etag = `"custom-${hash.slice(0, 40)}-thumb-${width}-${format}"`;
    return {
      etag,
      load: async () => {
        const made = await getOrCreateCached(this.deps.dir, hash, thumbnailVariant(width, undefined, format), async () => {
          const stored = await readFile(cachedPath(this.deps.dir, hash, STORED_VARIANT));
          return (await resizeImage(stored, { width, format })).data;
        });
        return { data: made.data ?? (await readFile(made.path)), mediaType: MEDIA_TYPE_BY_FORMAT[format], etag };
      },
    };
  }

  /** The chosen cover at its stored size as JPEG (OPDS' full-size cover link), or null for the generated one. */
  async full(target: CoverTarget): Promise<ImageLookup | null> {
    const row = await this.present(target);
    if (!row) return null;
    const hash = row.image_hash;
    const etag = `"custom-${hash.slice(0, 40)}-full-jpeg"`;
    return {
      etag,
      load: async () => {
        const made = await getOrCreateCached(this.deps.dir, hash, 'full.jpg', async () => {
          const stored = await readFile(cachedPath(this.deps.dir, hash, STORED_VARIANT));
          return (await resizeImage(stored, { format: 'jpeg', quality: 90 })).data;
        });
        return { data: made.data ?? (await readFile(made.path)), mediaType: MEDIA_TYPE_BY_FORMAT.jpeg, etag };
      },
    };
  }

  private async uploaded(data: Buffer): Promise<Buffer> {
    const type = sniffImageType(data);
    if (type === null || !COVER_UPLOAD_TYPES.includes(type)) {
      throw new AppError(415, 'UnsupportedMediaType', 'The file is not a JPEG, PNG or WebP image', {
        accepted: COVER_UPLOAD_TYPES,
        ...(type ? { detected: type } : {}),
      });
    }
    return data;
  }

  /** The bytes of a page of a book the caller sees (404 otherwise); a page that is no image is a 400. */
  private async pageImage(caller: Caller, bookId: string, page: number): Promise<Buffer> {
    const book = await this.deps.access.book(caller, bookId);
    const count = Number(book.page_count);
    if (page < 1 || page > count)
      throw badRequest(`page must be between 1 and ${count}, the pages of that book`, { page, page_count: count });
    const lookup = await this.deps.pages.page(caller, bookId, page, {}, true);
    return (await lookup.load()).data;
  }

  /** Decodes (within the pixel limit), fits in the stored box, re-encodes as WebP and keeps it by content hash. */
  private async store(source: Buffer): Promise<{ hash: string; width: number; height: number }> {
    let encoded: Buffer;
    try {
      encoded = (
        await resizeImage(source, { ...STORED_BOX, format: 'webp', quality: 90, maxInputPixels: COVER_MAX_PIXELS, timeoutSeconds: 20 })
      ).data;
    } catch (err) {
      throw refusal(err);
    }
    const sharp = await loadSharp();
    const { width, height } = await sharp(encoded).metadata();
    const hash = createHash('sha256').update(encoded).digest('hex');
    await writeAtomically(cachedPath(this.deps.dir, hash, STORED_VARIANT), encoded);
    return { hash, width: width ?? 0, height: height ?? 0 };
  }

  /** Removes a replaced cover's image and its thumbnails when no other cover uses them. */
  private async forget(previous: CustomCoverRow | undefined, keep?: string): Promise<void> {
    if (!previous || previous.image_hash === keep) return;
    if ((await this.deps.repo.imageInUse(previous.image_hash)) || (await this.deps.history.namesImage(previous.image_hash))) return;
    await removeCachedForHash(this.deps.dir, previous.image_hash);
  }

  private changed(where: { library_id: string; series_id: string; book_id?: string }): void {
    this.deps.bus.publish('cover_updated', { type: 'cover_updated', ...where, timestamp: new Date().toISOString() });
  }
}
