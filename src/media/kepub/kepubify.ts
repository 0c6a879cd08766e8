import { posix } from 'node:path';
import type { Element } from 'domhandler';
import { DomUtils, parseDocument } from 'htmlparser2';
import type { ZipArchive, ZipMember } from '../archives/zip-archive.js';
import { MediaError } from '../errors.js';
import type { MediaLimits } from '../limits.js';
import { parseContainer, parseOpf } from '../metadata/opf.js';
import { hasKoboSpans, isElement, isText, koboSpans, localName, parseContent, type ParsedContent } from './content.js';

/**
 * EPUB → KEPUB, the Kobo's own flavour of EPUB, as kepubify makes it (kepub/transform.go, MIT; Komga runs kepubify):
 * in every XHTML content document, each sentence in `<span class="koboSpan" id="kobo.P.S">`, the body's content in
 * `<div id="book-columns"><div id="book-inner">`, kepubify's one style rule in the head; in the package document, the
 * cover image marked `properties="cover-image"`. The device then reads it with its own renderer and reports positions
 * as spans (see locations.ts).
 *
 * The source is never re-serialised: the inserted elements are spliced in at the offsets the XML parser reports, so
 * every other byte of a document (its entities, comments, formatting) stays as it was. Left out of kepubify's
 * optional changes: smart punctuation, extra CSS, the Calibre-metadata clean-up and the dummy title page.
 */

/** kepubify's style rule, in a style element of class `kobostylehacks` as official KEPUBs have it. */
const STYLE = '<style type="text/css" class="kobostylehacks">div#book-inner { margin-top: 0; margin-bottom: 0;}</style>';
const COLUMNS_OPEN = '<div id="book-columns"><div id="book-inner">';
const COLUMNS_CLOSE = '</div></div>';

interface Insertion {
  at: number;
  /** At one offset: closing spans, closing divs, the style, opening divs, opening spans. */
  order: number;
  text: string;
}

/** Where an element's content starts, or null for a self-closing tag. */
function contentStart(content: ParsedContent, element: Element): number | null {
  const first = element.children[0];
  if (first) return first.startIndex ?? null;
  return contentEnd(content, element);
}

/** Where an element's closing tag starts, or null for a self-closing tag. */
function contentEnd(content: ParsedContent, element: Element): number | null {
  const last = element.children[element.children.length - 1];
  const at = last ? (last.endIndex ?? -2) + 1 : content.source.lastIndexOf('<', element.endIndex ?? -1);
  return at > (element.startIndex ?? 0) && content.source.startsWith('</', at) ? at : null;
}

/**
 * One content document as KEPUB, or null when it is left as it is: spans already there, no body, or offsets the
 * parser could not give (a document that is not well-formed XML).
 */
export function kepubifyContent(source: string): string | null {
  const content = parseContent(source);
  const { head, body } = content;
  if (!body || hasKoboSpans(content)) return null;
  const insertions: Insertion[] = [];
  for (const span of koboSpans(content)) {
    // A text run's offsets must cover text only: anything else means the parser's offsets cannot be trusted.
    if (isText(span.node) && source.slice(span.start, span.end).includes('<')) return null;
    insertions.push({ at: span.start, order: 4, text: `<span class="koboSpan" id="${span.id}">` });
    insertions.push({ at: span.end, order: 0, text: '</span>' });
  }
  const wrapped = body.children.some(
    (c) => isElement(c) && c.attribs.id === 'book-columns' && c.children.some((i) => isElement(i) && i.attribs.id === 'book-inner'),
  );
  if (!wrapped) {
    const start = contentStart(content, body);
    const end = contentEnd(content, body);
    if (start === null || end === null) return null;
    insertions.push({ at: start, order: 3, text: COLUMNS_OPEN }, { at: end, order: 1, text: COLUMNS_CLOSE });
  }
  const headEnd = head ? contentEnd(content, head) : null;
  if (headEnd !== null) insertions.push({ at: headEnd, order: 2, text: STYLE });
  insertions.sort((a, b) => a.at - b.at || a.order - b.order);
  let out = '';
  let from = 0;
  for (const { at, text } of insertions) {
    if (at < from || at > source.length) return null;
    out += source.slice(from, at) + text;
    from = at;
  }
  return out + source.slice(from);
}

/**
 * The package document with the cover image marked `properties="cover-image"` (the only way the Kobo finds it),
 * when an EPUB 2 `<meta name="cover">` (or an item of id `cover`) names it; null when nothing changes.
 */
export function markCoverImage(opf: string): string | null {
  const document = parseDocument(opf, { xmlMode: true, withStartIndices: true, withEndIndices: true });
  const elements = DomUtils.findAll(() => true, document.children);
  const coverId = elements.find((e) => localName(e) === 'meta' && e.attribs.name === 'cover')?.attribs.content ?? 'cover';
  const item = elements.find((e) => localName(e) === 'item' && e.attribs.id === coverId);
  if (!item || item.startIndex === null || item.endIndex === null) return null;
  const properties = (item.attribs.properties ?? '').split(/\s+/).filter(Boolean);
  if (properties.includes('cover-image') || !(item.attribs['media-type'] ?? '').startsWith('image/')) return null;
  if (item.attribs.properties === undefined) {
    // The attribute goes right after the tag's name, which follows `<` directly.
    const at = item.startIndex + 1 + item.name.length;
    return `${opf.slice(0, at)} properties="cover-image"${opf.slice(at)}`;
  }
  // An item is empty: written out again with the property added, attribute values escaped as XML.
  const clone = item.cloneNode(false);
  clone.attribs.properties = [...properties, 'cover-image'].join(' ');
  return (
    opf.slice(0, item.startIndex) + DomUtils.getOuterHTML(clone, { xmlMode: true, encodeEntities: 'utf8' }) + opf.slice(item.endIndex + 1)
  );
}

/** Files kepubify leaves out of a KEPUB: other programs' bookkeeping. */
function leftOut(name: string): boolean {
  const base = posix.basename(name);
  return (
    ['calibre_bookmarks.txt', 'iTunesMetadata.plist', 'iTunesArtwork.plist', '.DS_Store', 'Thumbs.db', 'thumbs.db'].includes(base) ||
    name.startsWith('__MACOSX/')
  );
}

const CONTENT_TYPES = new Set(['application/xhtml+xml', 'text/html']);
const CONTENT_EXTENSIONS = new Set(['.xhtml', '.html', '.htm']);
/** Kept as they are in the archive: compressed already. */
const PACKED_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png', '.gif', '.webp', '.avif', '.mp3', '.mp4', '.m4a', '.woff', '.woff2']);

/** Text in UTF-8, or null (UTF-16 or broken bytes: such a document is copied as it is). */
function utf8(data: Buffer): string | null {
  if ((data[0] === 0xfe && data[1] === 0xff) || (data[0] === 0xff && data[1] === 0xfe)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return null;
  }
}

/** Paths the EPUB's `META-INF/encryption.xml` lists: encrypted (or obfuscated) files are copied, never parsed. */
async function encryptedPaths(archive: ZipArchive, limits: MediaLimits): Promise<Set<string>> {
  const member = archive.get('META-INF/encryption.xml');
  if (!member) return new Set();
  const document = parseDocument(await archive.readText(member, limits.maxXmlBytes), { xmlMode: true });
  return new Set(
    DomUtils.findAll((e) => localName(e) === 'cipherreference', document.children)
      .map((e) => e.attribs.URI ?? e.attribs.uri ?? '')
      .map((uri) => {
        try {
          return decodeURIComponent(uri);
        } catch {
          return uri;
        }
      }),
  );
}

/**
 * The EPUB open in `archive` as a KEPUB (a zip, `mimetype` first and stored). Throws a MediaError when it is not an
 * EPUB that can be read; a content document that cannot be converted is copied as it is.
 */
export async function convertToKepub(archive: ZipArchive, limits: MediaLimits, modified: Date): Promise<Buffer> {
  const container = archive.get('META-INF/container.xml');
  const opfPath = container ? parseContainer(await archive.readText(container, limits.maxXmlBytes)) : null;
  const opfMember = opfPath ? archive.get(opfPath) : undefined;
  if (!opfPath || !opfMember) throw new MediaError('corrupt', 'not an EPUB: no package document');
  const opfText = await archive.readText(opfMember, limits.maxXmlBytes);
  const opf = parseOpf(opfText, opfPath);
  const encrypted = await encryptedPaths(archive, limits);
  const documents = new Set(
    [...opf.manifest.values()]
      .filter((item) => CONTENT_TYPES.has(item.mediaType) || CONTENT_EXTENSIONS.has(posix.extname(item.path).toLowerCase()))
      .map((item) => item.path)
      .filter((path) => !encrypted.has(path)),
  );

  // yazl is CommonJS: `default` is its exports, from node_modules and from the bundle's chunk alike.
  const { default: yazl } = await import('yazl');
  const zip = new yazl.ZipFile();
  const output = (async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  })();
  zip.addBuffer(Buffer.from('application/epub+zip'), 'mimetype', { compress: false, mtime: modified });
  const add = (member: ZipMember, data: Buffer, changed: boolean) => {
    const packed = PACKED_EXTENSIONS.has(posix.extname(member.name).toLowerCase());
    zip.addBuffer(data, member.name, { compress: changed || (member.method !== 0 && !packed), mtime: modified });
  };
  const written = new Set<string>();
  for (const member of archive.members) {
    if (member.name === 'mimetype' || member.name.endsWith('/') || leftOut(member.name) || written.has(member.name)) continue;
    written.add(member.name);
    const data = await archive.read(member);
    if (member.name === opfPath) {
      const marked = markCoverImage(opfText);
      add(member, marked === null ? data : Buffer.from(marked), marked !== null);
      continue;
    }
    if (documents.has(member.name) && data.length <= limits.maxXmlBytes) {
      const text = utf8(data);
      const converted = text === null ? null : kepubifyContent(text);
      add(member, converted === null ? data : Buffer.from(converted), converted !== null);
      continue;
    }
    add(member, data, false);
  }
  zip.end();
  return output;
}
