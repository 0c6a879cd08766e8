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

export function loadPdfjs(): Promise<PdfjsModule> {
  pdfjsModule ??= once(
    () => import('pdfjs-dist/legacy/build/pdf.mjs'),
    () => (pdfjsModule = undefined),
  );
  return pdfjsModule;
}

export function loadCanvas(): Promise<CanvasModule> {
  canvasModule ??= once(
    () => import('@napi-rs/canvas'),
    () => (canvasModule = undefined),
  );
  return canvasModule;
}
