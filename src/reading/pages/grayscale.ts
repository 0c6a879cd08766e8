import { sniffImageType } from '../../media/images/image-types.js';
import { loadSharp } from '../../media/native-modules.js';

/**
 * The image in shades of grey, in its own format (a GIF becomes PNG: sharp writes GIF only with a palette
 * quantiser that would band the greys). E-ink screens show grey pages sharper when the server did the
 * conversion, and the bytes are smaller.
 */
export async function grayscaleImage(data: Buffer): Promise<Buffer> {
  const type = sniffImageType(data);
  // sharp (libvips) is loaded on first use, like every other image path: a server that never greys a page never pays for it.
  const sharp = await loadSharp();
  const image = sharp(data, { failOn: 'none' }).grayscale();
  if (type === 'image/jpeg') return image.jpeg({ quality: 85, mozjpeg: true }).toBuffer();
  if (type === 'image/webp') return image.webp({ quality: 85 }).toBuffer();
  return image.png().toBuffer();
}
