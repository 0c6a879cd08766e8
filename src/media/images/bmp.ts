import { bmpDimensions } from './bmp-header.js';
import { MediaError } from '../errors.js';
import { loadCanvas } from '../native-modules.js';

/** BMP is a page format sharp (libvips) does not load; Skia in @napi-rs/canvas does. */
export { bmpDimensions } from './bmp-header.js';

export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  channels: 4;
}

export async function decodeBmp(input: Buffer, maxPixels: number): Promise<RawImage> {
  const size = bmpDimensions(input);
  if (!size || size.width === 0 || size.height === 0) throw new MediaError('corrupt', 'BMP header is damaged');
  if (size.width * size.height > maxPixels) {
    throw new MediaError('too_large', `image of ${size.width}×${size.height} pixels exceeds the limit of ${maxPixels}`);
  }
  const { createCanvas, loadImage } = await loadCanvas();
  let image: Awaited<ReturnType<typeof loadImage>>;
  try {
    image = await loadImage(input);
  } catch (err) {
    throw new MediaError('corrupt', 'BMP image cannot be decoded', { cause: err });
  }
  const canvas = createCanvas(image.width, image.height);
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const pixels = context.getImageData(0, 0, image.width, image.height).data;
  return { data: Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength), width: image.width, height: image.height, channels: 4 };
}
