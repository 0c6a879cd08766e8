/**
 * BMP is a page format sharp (libvips) does not load; Skia in @napi-rs/canvas does. The header holds the size
 * at fixed offsets, which lets the pixel limit be checked before anything is decoded. (Apart from bmp.ts so that
 * reading a size does not load @napi-rs/canvas.)
 */
export function bmpDimensions(head: Buffer): { width: number; height: number } | null {
  if (head.length < 26 || head.toString('latin1', 0, 2) !== 'BM') return null;
  const headerSize = head.readUInt32LE(14);
  if (headerSize === 12) return { width: head.readUInt16LE(18), height: head.readUInt16LE(20) };
  if (headerSize < 40) return null;
  // A negative height marks a top-down bitmap.
  return { width: Math.abs(head.readInt32LE(18)), height: Math.abs(head.readInt32LE(22)) };
}
