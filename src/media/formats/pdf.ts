import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { MediaError, asMediaError, throwIfAborted } from '../errors.js';
import { MEDIA_TYPE_BY_FORMAT } from '../images/images.js';
import { loadPdfjs } from '../native-modules.js';
import { type MediaLimits, resolveLimits } from '../limits.js';
import { type PdfProperties, pdfPropertiesFromInfo, pdfPropertiesToFields } from '../metadata/pdf-properties.js';
import { readPdfStructure, type PdfStructure } from './pdf-structure.js';
import type { ReaderOptions } from './reader-options.js';
import type { BookReader, CoverRef, EmbeddedMetadata, PageData, PageEntry, PageInfo, RenderHint } from '../types.js';

/** pdfjs types its canvas as the DOM's; in Node it is an @napi-rs/canvas Canvas from `doc.canvasFactory`. */
type RenderCanvas = NonNullable<Parameters<PDFPageProxy['render']>[0]['canvas']>;

interface NodeCanvas {
  encode(format: 'png'): Promise<Buffer>;
  encode(format: 'jpeg' | 'webp', quality?: number): Promise<Buffer>;
}

interface PdfCanvasFactory {
  create(
    width: number,
    height: number,
  ): {
    canvas: NodeCanvas;
    context: { fillStyle: string; fillRect(x: number, y: number, width: number, height: number): void };
  };
}

/** Long edge of a rendered page when the caller asks for no size. */
export const DEFAULT_PDF_LONG_EDGE = 1600;

const pdfjsRoot = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
// pdfjs fetches these lazily: the 14 standard fonts (so text renders without embedded fonts), CJK character
// maps, and the WASM image decoders (JPEG 2000, JBIG2).
const assets = {
  standardFontDataUrl: join(pdfjsRoot, 'standard_fonts') + '/',
  cMapUrl: join(pdfjsRoot, 'cmaps') + '/',
  cMapPacked: true,
  wasmUrl: join(pdfjsRoot, 'wasm') + '/',
};

function pdfError(err: unknown, context: string): MediaError {
  if (err instanceof MediaError) return err;
  const name = err instanceof Error ? err.name : '';
  if (name === 'PasswordException') return new MediaError('encrypted', `${context}: the PDF is password-protected`, { cause: err });
  if (name === 'RenderingCancelledException') return new MediaError('aborted', `${context}: rendering cancelled`, { cause: err });
  return asMediaError(err, 'corrupt', `${context}: ${name || 'PDF error'}`);
}

/**
 * Longest side, in pixels, of a rendered page: 0x3FFF, the largest WebP can encode and sharp's own per-side
 * default. Without it only the area was capped, and a degenerate page box (1 × 14400 pt asked at width 300)
 * got a 137 × 1,965,600 canvas (about 1 GB).
 */
export const MAX_PDF_RENDER_SIDE = 0x3fff;

/**
 * Largest embedded image (width × height, in pixels) pdfjs decodes; a bigger one is left out of the page, which
 * renders without it (pdfjs's `maxImageSize`). 2^26 (8192 × 8192) is twice a 600 dpi scan of an A4 or letter
 * page, well above real comic and book scans. Decoding costs about 8 bytes per pixel for grey and 12 for RGB
 * (decoded samples, their RGB(A) expansion and the scratch canvas pdfjs paints them through), so the limit
 * keeps one image under about 0.5–0.9 GB, where a 390 KB file with a 20000 × 20000 image took 5.8 GB and 15 s.
 */
export const PDF_MAX_IMAGE_PIXELS = 2 ** 26;

/**
 * Canvas area pdfjs's image resizer may assume is safe, in bytes (RGBA): the same bound as the decoded images.
 * It only matters where pdfjs resizes images on an OffscreenCanvas (not in Node) and when it picks a reduced
 * resolution for JPEG 2000 images; it is also process-wide in pdfjs (the first document sets it), hence a
 * constant rather than something per reader.
 */
const PDF_CANVAS_MAX_AREA_BYTES = PDF_MAX_IMAGE_PIXELS * 4;

/**
 * Scale that fits a page of `width` × `height` points (at scale 1, UserUnit applied) into the hint (or the
 * default long edge), capped so that neither side exceeds MAX_PDF_RENDER_SIDE and the area stays within
 * `maxPixels`. The caps only ever shrink the page, keeping its aspect ratio. Null for a page box with no usable
 * size.
 */
function scaleFor(width: number, height: number, hint: RenderHint | undefined, maxPixels: number): number | null {
  if (!(width > 0 && height > 0 && Number.isFinite(width) && Number.isFinite(height))) return null;
  let scale: number;
  if (hint?.width || hint?.height) {
    const sx = hint.width ? hint.width / width : Infinity;
    const sy = hint.height ? hint.height / height : Infinity;
    scale = Math.min(sx, sy);
  } else {
    scale = DEFAULT_PDF_LONG_EDGE / Math.max(width, height);
  }
  scale = Math.min(scale, MAX_PDF_RENDER_SIDE / Math.max(width, height));
  const pixels = width * height * scale * scale;
  if (pixels > maxPixels) scale = Math.sqrt(maxPixels / (width * height));
  return scale;
}

/** Whole pixels of a side rendered at `scale`: at least 1, at most MAX_PDF_RENDER_SIDE. */
function side(points: number, scale: number): number {
  return Math.min(MAX_PDF_RENDER_SIDE, Math.max(1, Math.round(points * scale)));
}

/**
 * A PDF for reading. Its page list and document information come from the file's own structure when it is an
 * ordinary PDF (pdf-structure.ts), and pdf.js is loaded only when a page is drawn: a scan never needs it. A PDF
 * that structure reader leaves aside is opened by pdf.js at once, as before.
 */
class PdfReader implements BookReader {
  readonly format = 'pdf' as const;
  private readonly entries: PageEntry[];
  private opened: Promise<PDFDocumentProxy> | undefined;

  constructor(
    private readonly open: () => Promise<PDFDocumentProxy>,
    pageCount: number,
    private readonly limits: MediaLimits,
    private readonly label: string,
    private readonly structure: PdfStructure | null,
    doc?: PDFDocumentProxy,
  ) {
    if (doc) this.opened = Promise.resolve(doc);
    this.entries = Array.from({ length: pageCount }, (_, i) => ({
      number: i + 1,
      file_name: `page-${i + 1}`,
      media_type: MEDIA_TYPE_BY_FORMAT.jpeg,
      size: 0,
    }));
  }

  /**
   * pdf.js, opened once at the first page drawn. A failed open stays failed, as an open at the start did: pdf.js may
   * have taken (detached) the bytes it was given, so a second try could only fail in a stranger way.
   */
  private get doc(): Promise<PDFDocumentProxy> {
    this.opened ??= this.open();
    return this.opened;
  }

  listPages(): readonly PageEntry[] {
    return this.entries;
  }

  private async page(n: number): Promise<PDFPageProxy> {
    if (!Number.isInteger(n) || n < 1 || n > this.entries.length) {
      throw new MediaError('not_found', `page ${n} does not exist (the book has ${this.entries.length})`);
    }
    try {
      return await (await this.doc).getPage(n);
    } catch (err) {
      throw pdfError(err, `${this.label}: page ${n}`);
    }
  }

  /** The scale and pixel size page `n` renders at for `hint` (see scaleFor). */
  private fit(page: PDFPageProxy, n: number, hint: RenderHint | undefined): { scale: number; width: number; height: number } {
    return this.fitSize(page.getViewport({ scale: 1 }), n, hint);
  }

  private fitSize(
    base: { width: number; height: number },
    n: number,
    hint: RenderHint | undefined,
  ): { scale: number; width: number; height: number } {
    const scale = scaleFor(base.width, base.height, hint, this.limits.maxInputPixels);
    if (scale === null) {
      throw new MediaError('corrupt', `${this.label}: page ${n}: the page box (${base.width} × ${base.height}) has no usable size`);
    }
    return { scale, width: side(base.width, scale), height: side(base.height, scale) };
  }

  /** Page sizes as rendered by default (long edge 1600 px), from the page boxes; nothing is drawn. */
  async pages(signal?: AbortSignal): Promise<PageInfo[]> {
    const result: PageInfo[] = [];
    if (this.structure) {
      for (const entry of this.entries) {
        const { width, height } = this.fitSize(this.structure.pages[entry.number - 1]!, entry.number, undefined);
        result.push({ ...entry, width, height });
      }
      return result;
    }
    for (const entry of this.entries) {
      throwIfAborted(signal);
      const page = await this.page(entry.number);
      try {
        const { width, height } = this.fit(page, entry.number, undefined);
        result.push({ ...entry, width, height });
      } finally {
        page.cleanup();
      }
    }
    return result;
  }

  async readPage(n: number, hint?: RenderHint): Promise<PageData> {
    throwIfAborted(hint?.signal);
    const page = await this.page(n);
    let size: { scale: number; width: number; height: number };
    try {
      size = this.fit(page, n, hint);
    } catch (err) {
      page.cleanup();
      throw err;
    }
    const { scale, width, height } = size;
    const viewport = page.getViewport({ scale });
    // The canvas must come from pdfjs's own factory: pdfjs bundles its own @napi-rs/canvas, and paths built
    // by one copy are rejected by contexts of the other.
    const factory = (await this.doc).canvasFactory as PdfCanvasFactory;
    const { canvas, context } = factory.create(width, height);
    // PDF pages are paper: transparent areas render white, as every viewer does.
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, width, height);
    const task = page.render({ canvas: canvas as unknown as RenderCanvas, viewport });
    const onAbort = () => task.cancel();
    hint?.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await task.promise;
      const format = hint?.format ?? 'jpeg';
      const data = format === 'png' ? await canvas.encode('png') : await canvas.encode(format, format === 'jpeg' ? 85 : 82);
      return { data, mediaType: MEDIA_TYPE_BY_FORMAT[format] };
    } catch (err) {
      throw pdfError(err, `${this.label}: page ${n}`);
    } finally {
      hint?.signal?.removeEventListener('abort', onAbort);
      page.cleanup();
    }
  }

  async properties(): Promise<PdfProperties> {
    if (this.structure) return pdfPropertiesFromInfo(this.structure.info);
    try {
      const { info } = await (await this.doc).getMetadata();
      return pdfPropertiesFromInfo(info);
    } catch (err) {
      throw pdfError(err, `${this.label}: document properties`);
    }
  }

  async metadata(): Promise<EmbeddedMetadata> {
    return { source: 'pdf', fields: pdfPropertiesToFields(await this.properties()) };
  }

  async coverRef(): Promise<CoverRef> {
    return { pageNumber: 1, fileName: 'page-1' };
  }

  async cover(hint?: RenderHint): Promise<PageData & CoverRef> {
    return { ...(await this.readPage(1, hint)), ...(await this.coverRef()) };
  }

  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    if (opened) await (await opened.catch(() => null))?.destroy();
  }
}

export async function openPdf(path: string, options: ReaderOptions = {}): Promise<BookReader> {
  const limits = resolveLimits(options.limits);
  let data: Uint8Array;
  if (options.data) {
    data = options.data;
  } else {
    try {
      const file = await readFile(path);
      data = new Uint8Array(file.buffer, file.byteOffset, file.byteLength);
    } catch (err) {
      throw asMediaError(err, 'corrupt', path);
    }
  }
  if (data.length === 0) throw new MediaError('corrupt', `${path}: empty file`);
  // A copy when the caller's buffer is pooled: pdfjs keeps (and may transfer) the array it is given.
  const open = () => openWithPdfjs(options.data ? new Uint8Array(data) : data, path);
  const structure = readPdfStructure(data, limits.maxEntries);
  if (structure) return new PdfReader(open, structure.pages.length, limits, path, structure);
  const doc = await open();
  if (doc.numPages === 0) {
    await doc.destroy();
    throw new MediaError('no_pages', `${path}: the PDF has no pages`);
  }
  return new PdfReader(open, doc.numPages, limits, path, null, doc);
}

async function openWithPdfjs(bytes: Uint8Array, path: string): Promise<PDFDocumentProxy> {
  const { getDocument } = await loadPdfjs();
  const task = getDocument({
    data: bytes,
    ...assets,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
    // Hostile-file limits: see PDF_MAX_IMAGE_PIXELS. An image over the limit is dropped from the page (pdfjs
    // warns and renders the rest, as stopAtErrors is off), before any of it is inflated.
    maxImageSize: PDF_MAX_IMAGE_PIXELS,
    canvasMaxAreaInBytes: PDF_CANVAS_MAX_AREA_BYTES,
  });
  try {
    return await task.promise;
  } catch (err) {
    await task.destroy().catch(() => undefined);
    throw pdfError(err, path);
  }
}
