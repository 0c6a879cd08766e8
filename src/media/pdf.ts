import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { MediaError, asMediaError, throwIfAborted } from './errors.js';
import { MEDIA_TYPE_BY_FORMAT } from './images.js';
import { loadPdfjs } from './native-modules.js';
import { resolveLimits } from './limits.js';
import type { MediaLimits } from './limits.js';
import { pdfPropertiesFromInfo, pdfPropertiesToFields } from './pdf-properties.js';
import type { PdfProperties } from './pdf-properties.js';
import type { ReaderOptions } from './reader-options.js';
import type { BookReader, CoverRef, EmbeddedMetadata, PageData, PageEntry, PageInfo, RenderHint } from './types.js';

/** pdfjs types its canvas as the DOM's; in Node it is an @napi-rs/canvas Canvas from `doc.canvasFactory`. */
type RenderCanvas = NonNullable<Parameters<PDFPageProxy['render']>[0]['canvas']>;

interface NodeCanvas {
  encode(format: 'png'): Promise<Buffer>;
  encode(format: 'jpeg' | 'webp', quality?: number): Promise<Buffer>;
}

interface PdfCanvasFactory {
  create(width: number, height: number): {
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

/** Scale that fits a page of `width` × `height` points into the hint (or the default long edge), capped by the pixel limit. */
function scaleFor(width: number, height: number, hint: RenderHint | undefined, maxPixels: number): number {
  let scale: number;
  if (hint?.width || hint?.height) {
    const sx = hint.width ? hint.width / width : Infinity;
    const sy = hint.height ? hint.height / height : Infinity;
    scale = Math.min(sx, sy);
  } else {
    scale = DEFAULT_PDF_LONG_EDGE / Math.max(width, height);
  }
  const pixels = width * height * scale * scale;
  if (pixels > maxPixels) scale = Math.sqrt(maxPixels / (width * height));
  return scale;
}

class PdfReader implements BookReader {
  readonly format = 'pdf' as const;
  private readonly entries: PageEntry[];

  constructor(
    private readonly doc: PDFDocumentProxy,
    private readonly limits: MediaLimits,
    private readonly label: string,
  ) {
    this.entries = Array.from({ length: doc.numPages }, (_, i) => ({
      number: i + 1,
      file_name: `page-${i + 1}`,
      media_type: MEDIA_TYPE_BY_FORMAT.jpeg,
      size: 0,
    }));
  }

  listPages(): readonly PageEntry[] {
    return this.entries;
  }

  private async page(n: number): Promise<PDFPageProxy> {
    if (!Number.isInteger(n) || n < 1 || n > this.entries.length) {
      throw new MediaError('not_found', `page ${n} does not exist (the book has ${this.entries.length})`);
    }
    try {
      return await this.doc.getPage(n);
    } catch (err) {
      throw pdfError(err, `${this.label}: page ${n}`);
    }
  }

  /** Page sizes as rendered by default (long edge 1600 px), from the page boxes; nothing is drawn. */
  async pages(signal?: AbortSignal): Promise<PageInfo[]> {
    const result: PageInfo[] = [];
    for (const entry of this.entries) {
      throwIfAborted(signal);
      const page = await this.page(entry.number);
      const base = page.getViewport({ scale: 1 });
      const scale = scaleFor(base.width, base.height, undefined, this.limits.maxInputPixels);
      result.push({ ...entry, width: Math.round(base.width * scale), height: Math.round(base.height * scale) });
      page.cleanup();
    }
    return result;
  }

  async readPage(n: number, hint?: RenderHint): Promise<PageData> {
    throwIfAborted(hint?.signal);
    const page = await this.page(n);
    const base = page.getViewport({ scale: 1 });
    const viewport = page.getViewport({ scale: scaleFor(base.width, base.height, hint, this.limits.maxInputPixels) });
    const width = Math.max(1, Math.round(viewport.width));
    const height = Math.max(1, Math.round(viewport.height));
    // The canvas must come from pdfjs's own factory: pdfjs bundles its own @napi-rs/canvas, and paths built
    // by one copy are rejected by contexts of the other.
    const factory = this.doc.canvasFactory as PdfCanvasFactory;
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
    try {
      const { info } = await this.doc.getMetadata();
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
    await this.doc.destroy();
  }
}

export async function openPdf(path: string, options: ReaderOptions = {}): Promise<BookReader> {
  const limits = resolveLimits(options.limits);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw asMediaError(err, 'corrupt', path);
  }
  if (bytes.length === 0) throw new MediaError('corrupt', `${path}: empty file`);
  const { getDocument } = await loadPdfjs();
  const task = getDocument({
    data: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    ...assets,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  });
  let doc: PDFDocumentProxy;
  try {
    doc = await task.promise;
  } catch (err) {
    await task.destroy().catch(() => undefined);
    throw pdfError(err, path);
  }
  if (doc.numPages === 0) {
    await doc.destroy();
    throw new MediaError('no_pages', `${path}: the PDF has no pages`);
  }
  return new PdfReader(doc, limits, path);
}
