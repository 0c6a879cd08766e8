/**
 * The heavy native and WASM libraries of the media engine, loaded on first use. Together they cost a process
 * (and each analysis worker thread) about 90 MB before any work: sharp (libvips) ~35 MB, pdfjs-dist ~35 MB,
 * @napi-rs/canvas ~25 MB. A scan of CBZ books needs none of them (page sizes come from the plain-JS header
 * parser), so a worker that meets no PDF, BMP or odd image never loads them, and neither does a server that
 * has not yet resized an image. (node-unrar-js is lazy in unrar.ts for the same reason.)
 */
type SharpModule = typeof import('sharp');
type PdfjsModule = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
type CanvasModule = typeof import('@napi-rs/canvas');

let sharpModule: Promise<SharpModule['default']> | undefined;
let pdfjsModule: Promise<PdfjsModule> | undefined;
let canvasModule: Promise<CanvasModule> | undefined;

/** A failed load is not cached: the next call tries again. */
function once<T>(load: () => Promise<T>, forget: () => void): Promise<T> {
  const loading = load();
  loading.catch(forget);
  return loading;
}

export function loadSharp(): Promise<SharpModule['default']> {
  sharpModule ??= once(
    () =>
      import('sharp').then((module) => {
        // libvips' operation cache (up to 50 MB) never hits here: every resize is of a different image, and its
        // result is kept on disk (derived cache, covers). Off, the peak of a library's cover task is lower.
        module.default.cache(false);
        return module.default;
      }),
    () => (sharpModule = undefined),
  );
  return sharpModule;
}

/**
 * Built-ins that pdfjs's legacy build replaces with core-js polyfills when it loads (forced on Node 20 for
 * edge cases nobody here meets: JSON.rawJSON, a push past 2^53 elements). The polyfills are plain JavaScript and
 * apply to the whole thread: after an analysis worker met its first PDF, every `push` and `JSON.stringify` of
 * every later book ran through them, and its CPU per CBZ roughly doubled.
 */
const builtInsPdfjsReplaces = [
  [JSON, 'stringify'],
  [JSON, 'parse'],
  [Array.prototype, 'push'],
] as const;

/** pdfjs's document worker, run in this thread (pdfjs's "fake worker"), which it would otherwise import on first use. */
const PDFJS_WORKER_MODULE: string = 'pdfjs-dist/legacy/build/pdf.worker.mjs';

async function importPdfjs(): Promise<PdfjsModule> {
  const natives = builtInsPdfjsReplaces.map(([owner, key]) => Object.getOwnPropertyDescriptor(owner, key)!);
  try {
    const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
    // Imported now, so that its polyfills are undone below too; it registers itself as globalThis.pdfjsWorker.
    await import(PDFJS_WORKER_MODULE);
    return pdfjs;
  } finally {
    for (const [i, [owner, key]] of builtInsPdfjsReplaces.entries()) Object.defineProperty(owner, key, natives[i]!);
  }
}

export function loadPdfjs(): Promise<PdfjsModule> {
  pdfjsModule ??= once(importPdfjs, () => (pdfjsModule = undefined));
  return pdfjsModule;
}

export function loadCanvas(): Promise<CanvasModule> {
  canvasModule ??= once(
    () => import('@napi-rs/canvas'),
    () => (canvasModule = undefined),
  );
  return canvasModule;
}
