/**
 * Generates media fixtures at test time (nothing binary is committed): CBZ with and without ComicInfo.xml,
 * EPUBs (EPUB2 calibre series, EPUB3 collections, image-only), PDFs with document properties, and hostile
 * files. Scanner and API tests import these too.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import yazl from 'yazl';

export type FixtureImageFormat = 'jpeg' | 'png' | 'webp' | 'gif' | 'avif' | 'bmp';

export interface ImageSpec {
  width: number;
  height: number;
  format?: FixtureImageFormat;
  /** CSS colour of the solid background. */
  color?: string;
  /** Adds noise so that the encoded image has a realistic size. */
  noise?: boolean;
}

const EXTENSION: Record<FixtureImageFormat, string> = { jpeg: 'jpg', png: 'png', webp: 'webp', gif: 'gif', avif: 'avif', bmp: 'bmp' };

/** A 24-bit uncompressed BMP (sharp cannot write BMP). */
export function makeBmp(width: number, height: number, rgb: [number, number, number] = [200, 30, 30]): Buffer {
  const rowBytes = Math.ceil((width * 3) / 4) * 4;
  const size = 54 + rowBytes * height;
  const bmp = Buffer.alloc(size);
  bmp.write('BM', 0, 'latin1');
  bmp.writeUInt32LE(size, 2);
  bmp.writeUInt32LE(54, 10);
  bmp.writeUInt32LE(40, 14);
  bmp.writeInt32LE(width, 18);
  bmp.writeInt32LE(height, 22);
  bmp.writeUInt16LE(1, 26);
  bmp.writeUInt16LE(24, 28);
  bmp.writeUInt32LE(rowBytes * height, 34);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = 54 + y * rowBytes + x * 3;
      bmp[at] = rgb[2];
      bmp[at + 1] = rgb[1];
      bmp[at + 2] = rgb[0];
    }
  }
  return bmp;
}

export async function makeImage(spec: ImageSpec): Promise<Buffer> {
  const format = spec.format ?? 'jpeg';
  if (format === 'bmp') return makeBmp(spec.width, spec.height);
  const image = sharp({
    create: {
      width: spec.width,
      height: spec.height,
      channels: 3,
      background: spec.color ?? '#3366cc',
      ...(spec.noise ? { noise: { type: 'gaussian' as const, mean: 128, sigma: 40 } } : {}),
    },
  });
  switch (format) {
    case 'jpeg':
      return image.jpeg({ quality: 80 }).toBuffer();
    case 'png':
      return image.png().toBuffer();
    case 'webp':
      return image.webp().toBuffer();
    case 'gif':
      return image.gif().toBuffer();
    case 'avif':
      return image.avif({ effort: 0 }).toBuffer();
  }
}

/**
 * A page that compresses like a real scan (panels, lines of text, shading) rather than like noise, which
 * is the worst case for every encoder. `seed` varies the layout.
 */
export async function makeScanLikePage(width: number, height: number, seed = 1): Promise<Buffer> {
  let state = seed * 9301 + 49297;
  const random = () => {
    state = (state * 9301 + 49297) % 233280;
    return state / 233280;
  };
  const panels: string[] = [];
  const rows = 3;
  const gap = Math.round(width * 0.03);
  const rowHeight = (height - gap * (rows + 1)) / rows;
  for (let row = 0; row < rows; row++) {
    const y = gap + row * (rowHeight + gap);
    const split = 0.3 + random() * 0.4;
    const widths = [(width - 3 * gap) * split, (width - 3 * gap) * (1 - split)];
    let x = gap;
    for (const panelWidth of widths) {
      const shade = Math.round(180 + random() * 60);
      panels.push(
        `<rect x="${x}" y="${y}" width="${panelWidth}" height="${rowHeight}" fill="rgb(${shade},${shade},${shade - 20})" stroke="black" stroke-width="4"/>`,
      );
      panels.push(
        `<circle cx="${x + panelWidth * random()}" cy="${y + rowHeight * random()}" r="${rowHeight * (0.1 + random() * 0.3)}" fill="rgb(${Math.round(random() * 255)},90,120)"/>`,
      );
      panels.push(
        `<text x="${x + 20}" y="${y + 50}" font-size="${Math.round(width / 40)}" font-family="sans-serif">Panel text ${Math.round(random() * 1000)} — it was a dark night.</text>`,
      );
      x += panelWidth + gap;
    }
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="white"/>${panels.join('')}</svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 88 }).toBuffer();
}

/** A PNG with a JPEG EXIF orientation is not possible; this JPEG says "rotate 90°" (orientation 6). */
export async function makeRotatedJpeg(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#888888' } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .toBuffer();
}

/** A PNG header declaring `width` × `height` with a few real rows: a pixel bomb that costs nothing to store. */
export function makePixelBombPng(width = 30000, height = 30000): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer): number => {
    let c = 0xffffffff;
    for (const b of bytes) c = (crcTable[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(8 + data.length + 4);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const rows = deflateSync(Buffer.alloc((width + 1) * 4));
  return Buffer.concat([
    Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'),
    chunk('IHDR', ihdr),
    chunk('IDAT', rows),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export interface ZipItem {
  name: string;
  data: Buffer | string;
  /** Store without compression (the default follows the archive's `store` option). */
  store?: boolean;
}

export async function writeZip(path: string, items: readonly ZipItem[], store = false): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  const zip = new yazl.ZipFile();
  const mtime = new Date('2020-01-01T00:00:00Z');
  for (const item of items) {
    const data = typeof item.data === 'string' ? Buffer.from(item.data, 'utf8') : item.data;
    zip.addBuffer(data, item.name, { compress: !(item.store ?? store), mtime });
  }
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(path));
  return path;
}

export type ComicInfoFields = Record<string, string | number>;

function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function comicInfoXml(fields: ComicInfoFields, pagesXml = ''): string {
  const body = Object.entries(fields)
    .map(([key, value]) => `  <${key}>${xmlEscape(String(value))}</${key}>`)
    .join('\n');
  return `<?xml version="1.0" encoding="utf-8"?>
<ComicInfo xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">
${body}
${pagesXml}
</ComicInfo>
`;
}

export interface PageSpec extends Partial<ImageSpec> {
  /** Entry name inside the archive. */
  name: string;
  /** Raw bytes instead of a generated image. */
  data?: Buffer;
}

export interface CbzOptions {
  /** A count (page001.jpg…, 600×900 JPEG) or explicit pages. */
  pages?: number | PageSpec[];
  /** ComicInfo.xml content: raw XML, or fields for `comicInfoXml`. */
  comicInfo?: string | ComicInfoFields;
  /** Store entries uncompressed (how most CBZ are made) instead of deflating them. */
  store?: boolean;
  /** More entries (thumbs.db, __MACOSX/…, nested folders). */
  extra?: ZipItem[];
  /** Size of generated pages when `pages` is a count. */
  pageSize?: { width: number; height: number };
  noise?: boolean;
}

export const DEFAULT_PAGE_SIZE = { width: 600, height: 900 };

export async function makeCbz(dir: string, name: string, options: CbzOptions = {}): Promise<string> {
  const specs: PageSpec[] =
    typeof options.pages === 'object'
      ? options.pages
      : Array.from({ length: options.pages ?? 3 }, (_, i) => ({
          name: `page${String(i + 1).padStart(3, '0')}.jpg`,
          ...(options.pageSize ?? DEFAULT_PAGE_SIZE),
          color: `hsl(${(i * 37) % 360}, 60%, 50%)`,
        }));
  const items: ZipItem[] = [];
  for (const spec of specs) {
    const data =
      spec.data ??
      (await makeImage({
        width: spec.width ?? DEFAULT_PAGE_SIZE.width,
        height: spec.height ?? DEFAULT_PAGE_SIZE.height,
        format: spec.format ?? formatFromName(spec.name),
        color: spec.color,
        noise: spec.noise ?? options.noise,
      }));
    items.push({ name: spec.name, data });
  }
  if (options.comicInfo !== undefined) {
    items.push({
      name: 'ComicInfo.xml',
      data: typeof options.comicInfo === 'string' ? options.comicInfo : comicInfoXml(options.comicInfo),
    });
  }
  items.push(...(options.extra ?? []));
  return writeZip(join(dir, name), items, options.store ?? false);
}

function formatFromName(name: string): FixtureImageFormat {
  const extension = name.split('.').pop()?.toLowerCase() ?? 'jpg';
  const found = (Object.entries(EXTENSION) as Array<[FixtureImageFormat, string]>).find(([, ext]) => ext === extension);
  return extension === 'jpeg' ? 'jpeg' : (found?.[0] ?? 'jpeg');
}

export interface EpubMetadata {
  title?: string;
  creators?: Array<{ name: string; role?: string }>;
  publisher?: string;
  language?: string;
  subjects?: string[];
  description?: string;
  date?: string;
  isbn?: string;
  uuid?: string;
  /** Written as calibre metas in EPUB2 and as belongs-to-collection in EPUB3. */
  series?: string;
  seriesIndex?: string;
}

export interface EpubOptions {
  version?: 2 | 3;
  /** `image`: each spine document wraps one image (comics); `reflowable`: chapters of text. */
  kind?: 'reflowable' | 'image';
  /** Declare rendition:layout pre-paginated. */
  fixedLayout?: boolean;
  pages?: number;
  pageSize?: { width: number; height: number };
  metadata?: EpubMetadata;
  /** Add a cover image declared in the OPF (the default). */
  cover?: boolean;
  /** Leave out the package document (hostile input). */
  omitOpf?: boolean;
  /** Spine direction. */
  rtl?: boolean;
  /** An EPUB 3 navigation document listing the chapters ("Chapter N", reflowable books). */
  toc?: boolean;
  /** More files in the archive, not in the package document. */
  extraFiles?: { name: string; data: string | Buffer }[];
}

export async function makeEpub(dir: string, name: string, options: EpubOptions = {}): Promise<string> {
  const version = options.version ?? 3;
  const kind = options.kind ?? 'reflowable';
  const count = options.pages ?? 3;
  const size = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const meta = options.metadata ?? {};
  const items: ZipItem[] = [{ name: 'mimetype', data: 'application/epub+zip', store: true }];
  items.push({
    name: 'META-INF/container.xml',
    data: `<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>`,
  });
  const manifest: string[] = [];
  const spine: string[] = [];
  const withCover = options.cover ?? true;
  if (withCover) {
    items.push({ name: 'OEBPS/images/cover.jpg', data: await makeImage({ width: 500, height: 750, color: '#aa2222' }) });
    manifest.push(
      version === 3
        ? '<item id="cover-img" href="images/cover.jpg" media-type="image/jpeg" properties="cover-image"/>'
        : '<item id="cover-img" href="images/cover.jpg" media-type="image/jpeg"/>',
    );
  }
  for (let i = 1; i <= count; i++) {
    const id = `p${i}`;
    if (kind === 'image') {
      items.push({
        name: `OEBPS/images/img${i}.png`,
        data: await makeImage({ ...size, format: 'png', color: `hsl(${i * 40}, 50%, 50%)` }),
      });
      manifest.push(`<item id="img${i}" href="images/img${i}.png" media-type="image/png"/>`);
      items.push({
        name: `OEBPS/page${i}.xhtml`,
        data: `<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Page ${i}</title></head>
<body><div class="page"><img src="images/img${i}.png" alt=""/></div></body></html>`,
      });
    } else {
      items.push({
        name: `OEBPS/chapter${i}.xhtml`,
        data: `<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Chapter ${i}</title></head>
<body><h1>Chapter ${i}</h1><p>It was a dark &amp; stormy night, part ${i}.</p></body></html>`,
      });
    }
    const href = kind === 'image' ? `page${i}.xhtml` : `chapter${i}.xhtml`;
    manifest.push(`<item id="${id}" href="${href}" media-type="application/xhtml+xml"/>`);
    spine.push(`<itemref idref="${id}"/>`);
  }
  if (options.toc) {
    const entries = Array.from({ length: count }, (_, i) => `<li><a href="chapter${i + 1}.xhtml">Chapter ${i + 1}</a></li>`);
    items.push({
      name: 'OEBPS/nav.xhtml',
      data: `<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Contents</title></head>
<body><nav epub:type="toc"><h1>Contents</h1><ol>${entries.join('')}</ol></nav></body></html>`,
    });
    manifest.push('<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>');
  }
  const dc: string[] = [];
  if (meta.title) dc.push(`<dc:title id="title">${xmlEscape(meta.title)}</dc:title>`);
  (meta.creators ?? []).forEach((creator, i) => {
    if (version === 2) {
      dc.push(`<dc:creator${creator.role ? ` opf:role="${creator.role}"` : ''}>${xmlEscape(creator.name)}</dc:creator>`);
    } else {
      dc.push(`<dc:creator id="creator${i}">${xmlEscape(creator.name)}</dc:creator>`);
      if (creator.role) dc.push(`<meta refines="#creator${i}" property="role" scheme="marc:relators">${creator.role}</meta>`);
    }
  });
  if (meta.publisher) dc.push(`<dc:publisher>${xmlEscape(meta.publisher)}</dc:publisher>`);
  dc.push(`<dc:language>${meta.language ?? 'en'}</dc:language>`);
  for (const subject of meta.subjects ?? []) dc.push(`<dc:subject>${xmlEscape(subject)}</dc:subject>`);
  if (meta.description) dc.push(`<dc:description>${xmlEscape(meta.description)}</dc:description>`);
  if (meta.date) dc.push(`<dc:date>${meta.date}</dc:date>`);
  dc.push(`<dc:identifier id="uid">urn:uuid:${meta.uuid ?? '4b2a8c1e-0000-4000-8000-000000000001'}</dc:identifier>`);
  if (meta.isbn) {
    dc.push(
      version === 2
        ? `<dc:identifier opf:scheme="ISBN">${meta.isbn}</dc:identifier>`
        : `<dc:identifier>urn:isbn:${meta.isbn}</dc:identifier>`,
    );
  }
  if (meta.series) {
    if (version === 2) {
      dc.push(`<meta name="calibre:series" content="${xmlEscape(meta.series)}"/>`);
      if (meta.seriesIndex) dc.push(`<meta name="calibre:series_index" content="${meta.seriesIndex}"/>`);
    } else {
      dc.push(`<meta property="belongs-to-collection" id="c01">${xmlEscape(meta.series)}</meta>`);
      dc.push('<meta refines="#c01" property="collection-type">series</meta>');
      if (meta.seriesIndex) dc.push(`<meta refines="#c01" property="group-position">${meta.seriesIndex}</meta>`);
    }
  }
  if (withCover && version === 2) dc.push('<meta name="cover" content="cover-img"/>');
  if (options.fixedLayout) dc.push('<meta property="rendition:layout">pre-paginated</meta>');
  if (version === 3) dc.push('<meta property="dcterms:modified">2020-01-01T00:00:00Z</meta>');
  const opf = `<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="${version === 3 ? '3.0' : '2.0'}" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">
    ${dc.join('\n    ')}
  </metadata>
  <manifest>
    ${manifest.join('\n    ')}
  </manifest>
  <spine${options.rtl ? ' page-progression-direction="rtl"' : ''}>
    ${spine.join('\n    ')}
  </spine>
</package>`;
  if (!options.omitOpf) items.push({ name: 'OEBPS/content.opf', data: opf });
  items.push(...(options.extraFiles ?? []));
  return writeZip(join(dir, name), items);
}

export interface PdfInfo {
  Title?: string;
  Author?: string;
  Subject?: string;
  Keywords?: string;
  Creator?: string;
  Producer?: string;
  CreationDate?: string;
}

export interface PdfOptions {
  pages?: number;
  /** Page size in points. */
  pageSize?: { width: number; height: number };
  info?: PdfInfo;
  /** Text drawn on each page (in Helvetica, a standard font). */
  text?: string;
}

function pdfString(text: string): string {
  return `(${text.replace(/\\/g, '\\\\').replace(/\(/g, '\\(').replace(/\)/g, '\\)')})`;
}

/** A minimal, valid PDF written object by object with a correct cross-reference table. */
export function pdfBytes(options: PdfOptions = {}): Buffer {
  const count = options.pages ?? 2;
  const { width, height } = options.pageSize ?? { width: 600, height: 800 };
  const objects: string[] = [];
  const pageIds = Array.from({ length: count }, (_, i) => 4 + i * 2);
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${count} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  pageIds.forEach((id, i) => {
    const content = `BT /F1 36 Tf 50 ${height - 100} Td ${pdfString(`${options.text ?? 'Page'} ${i + 1}`)} Tj ET`;
    objects[id] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] /Contents ${id + 1} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`;
    objects[id + 1] = `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`;
  });
  const infoId = 4 + count * 2;
  const info = Object.entries(options.info ?? {})
    .map(([key, value]) => `/${key} ${pdfString(String(value))}`)
    .join(' ');
  objects[infoId] = `<< ${info} >>`;
  let out = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  for (let id = 1; id <= infoId; id++) {
    offsets[id] = Buffer.byteLength(out, 'latin1');
    out += `${id} 0 obj\n${objects[id] ?? 'null'}\nendobj\n`;
  }
  const xrefAt = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${infoId + 1}\n0000000000 65535 f \n`;
  for (let id = 1; id <= infoId; id++) out += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${infoId + 1} /Root 1 0 R /Info ${infoId} 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

export async function makePdf(dir: string, name: string, options: PdfOptions = {}): Promise<string> {
  const path = join(dir, name);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, pdfBytes(options));
  return path;
}

/** Sets the "encrypted" bit of every entry, in local and central headers, as a ZipCrypto archive has. */
export function markZipEncrypted(zip: Buffer): Buffer {
  const out = Buffer.from(zip);
  for (let at = 0; at + 4 <= out.length; at++) {
    const signature = out.readUInt32LE(at);
    if (signature === 0x04034b50) out.writeUInt16LE(out.readUInt16LE(at + 6) | 1, at + 6);
    else if (signature === 0x02014b50) out.writeUInt16LE(out.readUInt16LE(at + 8) | 1, at + 8);
  }
  return out;
}

/** Rewrites the declared uncompressed size of every central directory entry (a lying zip bomb). */
export function setDeclaredSizes(zip: Buffer, size: number): Buffer {
  const out = Buffer.from(zip);
  for (let at = 0; at + 4 <= out.length; at++) {
    if (out.readUInt32LE(at) === 0x02014b50) out.writeUInt32LE(size, at + 24);
    if (out.readUInt32LE(at) === 0x04034b50) out.writeUInt32LE(size, at + 22);
  }
  return out;
}

export async function makeEncryptedCbz(dir: string, name: string): Promise<string> {
  // Deflated: a stored ZipCrypto entry would also need its 12-byte encryption header counted in its size.
  const plain = await makeCbz(dir, `${name}.plain`, { pages: 2 });
  const path = join(dir, name);
  await writeFile(path, markZipEncrypted(await readFile(plain)));
  return path;
}

/** One page that inflates from a few KB to `bytes` of zeros (1000:1). */
export async function makeZipBomb(dir: string, name: string, bytes = 64 * 1024 * 1024): Promise<string> {
  return writeZip(join(dir, name), [
    { name: 'page001.jpg', data: await makeImage({ width: 10, height: 10 }) },
    { name: 'page002.png', data: Buffer.alloc(bytes) },
  ]);
}

/** The first `keep` bytes of a file (a download cut short). */
export async function truncateCopy(source: string, target: string, keep: number): Promise<string> {
  await writeFile(target, (await readFile(source)).subarray(0, keep));
  return target;
}

export async function makeZeroByteFile(dir: string, name: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, Buffer.alloc(0));
  return path;
}

/** A PDF from object bodies (object n is `objects[n - 1]`; object 1 must be the catalog), with a correct xref table. */
export function pdfFromObjects(objects: (string | Buffer)[]): Buffer {
  const parts = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(length);
    const part = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), Buffer.from(body), Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(part);
    length += part.length;
  });
  let xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) xref += `${String(offset).padStart(10, '0')} 00000 n \n`;
  xref += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  return Buffer.concat([...parts, Buffer.from(xref, 'latin1')]);
}

export function pdfStream(dict: string, data: Buffer | string): Buffer {
  const bytes = Buffer.from(data);
  return Buffer.concat([
    Buffer.from(`<< ${dict} /Length ${bytes.length} >>\nstream\n`, 'latin1'),
    bytes,
    Buffer.from('\nendstream', 'latin1'),
  ]);
}

/** A one-page PDF: `pageDict` goes into the page dictionary, `extra` objects are numbered from 5. */
export function onePagePdf(pageDict: string, content: string, extra: Buffer[] = []): Buffer {
  return pdfFromObjects([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R ${pageDict} /Contents 4 0 R >>`,
    pdfStream('', content),
    ...extra,
  ]);
}
