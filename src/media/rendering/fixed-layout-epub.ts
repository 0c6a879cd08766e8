import { loadSharp } from '../native-modules.js';

/** One page of a fixed-layout EPUB: its image (JPEG or PNG). */
export interface FixedLayoutPage {
  data: Buffer;
  mediaType: 'image/jpeg' | 'image/png';
}

export interface FixedLayoutBook {
  /** A stable identifier (the book's id): the EPUB's unique identifier is `urn:uuid:<id>` when it is a UUID. */
  id: string;
  title: string;
  language: string;
  authors: string[];
  series?: { name: string; number: string | null };
  /** When the book last changed (ISO 8601): the EPUB's `dcterms:modified`. */
  modified: string;
  /** Right-to-left page order (manga). */
  rightToLeft?: boolean;
}

const escapeXml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
// XML 1.0 forbids most control characters: a title scanned from a broken ComicInfo must not make the EPUB invalid.
const clean = (text: string): string =>
  escapeXml([...text].filter((c) => c === '\t' || c === '\n' || c === '\r' || (c >= ' ' && c !== '\ufffe' && c !== '\uffff')).join(''));

const pageName = (n: number) => `page-${String(n).padStart(4, '0')}`;
/** Where page `n` (1-based) is in the generated EPUB: the Kobo's reading location names this document. */
export const fixedLayoutPageHref = (n: number): string => `OEBPS/${pageName(n)}.xhtml`;

const CONTAINER = `<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>
`;

function pageXhtml(n: number, image: string, width: number, height: number, language: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="${language}" lang="${language}">
<head>
<meta charset="UTF-8"/>
<meta name="viewport" content="width=${width}, height=${height}"/>
<title>${n}</title>
<style>html,body{margin:0;padding:0;width:${width}px;height:${height}px;overflow:hidden}img{display:block;width:${width}px;height:${height}px}</style>
</head>
<body><img src="${image}" alt="${n}" width="${width}" height="${height}"/></body>
</html>
`;
}

/**
 * A comic (or any list of page images) as a fixed-layout EPUB 3: one XHTML document per page, each exactly its
 * image's size, so e-readers that read EPUB but not CBZ (a Kobo) show one page per screen. Valid for epubcheck
 * (test/kobo). The images go in as they are (stored, not deflated: they are compressed already).
 */
export async function buildFixedLayoutEpub(book: FixedLayoutBook, pages: readonly FixedLayoutPage[]): Promise<Buffer> {
  // yazl is CommonJS: `default` is its exports, from node_modules and from the bundle's chunk alike.
  const [{ default: yazl }, sharp] = await Promise.all([import('yazl'), loadSharp()]);
  const zip = new yazl.ZipFile();
  const date = new Date(Date.parse(book.modified) || 0);
  // The mimetype first and uncompressed: how a reader recognises an EPUB (OCF 3.0 §4.3).
  zip.addBuffer(Buffer.from('application/epub+zip'), 'mimetype', { compress: false, mtime: date });
  zip.addBuffer(Buffer.from(CONTAINER), 'META-INF/container.xml', { mtime: date });

  const language = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(book.language) ? book.language : 'en';
  const manifest: string[] = [];
  const spine: string[] = [];
  for (const [i, page] of pages.entries()) {
    const n = i + 1;
    const meta = await sharp(page.data).metadata();
    const width = meta.autoOrient?.width ?? meta.width ?? 1;
    const height = meta.autoOrient?.height ?? meta.height ?? 1;
    const image = `${pageName(n)}.${page.mediaType === 'image/png' ? 'png' : 'jpg'}`;
    zip.addBuffer(page.data, `OEBPS/${image}`, { compress: false, mtime: date });
    zip.addBuffer(Buffer.from(pageXhtml(n, image, width, height, language)), fixedLayoutPageHref(n), { mtime: date });
    manifest.push(
      `<item id="img${n}" href="${image}" media-type="${page.mediaType}"${n === 1 ? ' properties="cover-image"' : ''}/>`,
      `<item id="p${n}" href="${pageName(n)}.xhtml" media-type="application/xhtml+xml"/>`,
    );
    spine.push(`<itemref idref="p${n}"/>`);
  }

  const nav = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="${language}" lang="${language}">
<head><meta charset="UTF-8"/><title>${clean(book.title)}</title></head>
<body><nav epub:type="toc" id="toc"><ol><li><a href="${pageName(1)}.xhtml">${clean(book.title)}</a></li></ol></nav></body>
</html>
`;
  zip.addBuffer(Buffer.from(nav), 'OEBPS/nav.xhtml', { mtime: date });

  const identifier = /^[0-9a-f-]{36}$/i.test(book.id) ? `urn:uuid:${book.id}` : book.id;
  const modified = date.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const creators = book.authors.map((a, i) => `<dc:creator id="creator${i + 1}">${clean(a)}</dc:creator>`);
  const series = book.series
    ? [
        `<meta property="belongs-to-collection" id="series">${clean(book.series.name)}</meta>`,
        '<meta refines="#series" property="collection-type">series</meta>',
        ...(book.series.number && /^\d+(\.\d+)?$/.test(book.series.number)
          ? [`<meta refines="#series" property="group-position">${book.series.number}</meta>`]
          : []),
      ]
    : [];
  const opf = `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid" xml:lang="${language}" prefix="rendition: http://www.idpf.org/vocab/rendition/#">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:identifier id="uid">${clean(identifier)}</dc:identifier>
<dc:title>${clean(book.title)}</dc:title>
<dc:language>${language}</dc:language>
${[...creators, ...series].join('\n')}
<meta property="dcterms:modified">${modified}</meta>
<meta property="rendition:layout">pre-paginated</meta>
<meta property="rendition:orientation">auto</meta>
<meta property="rendition:spread">none</meta>
</metadata>
<manifest>
<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
${manifest.join('\n')}
</manifest>
<spine${book.rightToLeft ? ' page-progression-direction="rtl"' : ''}>
${spine.join('\n')}
</spine>
</package>
`;
  zip.addBuffer(Buffer.from(opf), 'OEBPS/content.opf', { mtime: date });
  zip.end();

  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
