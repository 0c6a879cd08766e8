import sharp from 'sharp';
import { sniffImageType } from '../../media/image-types.js';

/**
 * The image in shades of grey, in its own format (a GIF becomes PNG: sharp writes GIF only with a palette
 * quantiser that would band the greys). E-ink screens show grey pages sharper when the server did the
 * conversion, and the bytes are smaller.
 */
export async function grayscaleImage(data: Buffer): Promise<Buffer> {
  const type = sniffImageType(data);
  const image = sharp(data, { failOn: 'none' }).grayscale();
  if (type === 'image/jpeg') return image.jpeg({ quality: 85, mozjpeg: true }).toBuffer();
  if (type === 'image/webp') return image.webp({ quality: 85 }).toBuffer();
  return image.png().toBuffer();
}
