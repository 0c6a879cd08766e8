import { createRequire } from 'node:module';
import type { XmlElement } from '@rgrove/parse-xml';
import type { XMLParser } from 'fast-xml-parser';
import { MediaError, errorMessage } from '../errors.js';

/**
 * Safe XML for metadata documents from untrusted books. No entity is ever expanded (no billion laughs, no XXE):
 * the DOCTYPE is cut out before parsing since no metadata format needs one, and only the five predefined entities
 * and character references are decoded.
 */
export type XmlNode = Record<string, unknown>;

const DOCTYPE_START = /<!DOCTYPE/gi;

/**
 * The text without its DOCTYPE declarations (internal subset included), in one pass. A regular expression for
 * this backtracked exponentially on a crafted subset (`[]]]` repeated: seconds at 60 characters), hanging the
 * worker on a 200-byte ComicInfo.xml. An unterminated declaration is left in place; the validator rejects it.
 */
export function stripDoctype(text: string): string {
  let out = '';
  let from = 0;
  DOCTYPE_START.lastIndex = 0;
  for (let found = DOCTYPE_START.exec(text); found; found = DOCTYPE_START.exec(text)) {
    let i = found.index + found[0].length;
    let inSubset = false;
    for (; i < text.length; i++) {
      const c = text[i];
      if (inSubset) {
        if (c === ']') inSubset = false;
      } else if (c === '[') inSubset = true;
      else if (c === '>') break;
    }
    if (i >= text.length) break;
    out += text.slice(from, found.index);
    from = i + 1;
    DOCTYPE_START.lastIndex = from;
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * Both parsers are loaded at their first use, not at import: the server's main thread imports this module (for
 * decodeXmlText) but parses XML only when a request or a scan needs it, and loading them cost every start ~0.3 s.
 * Synchronous (CommonJS builds through require) so parsing stays synchronous.
 */
const requireHere = createRequire(import.meta.url);
let strictModule: typeof import('@rgrove/parse-xml') | undefined;
let lenientModule: { parser: XMLParser; validate: (typeof import('fast-xml-parser'))['XMLValidator']['validate'] } | undefined;

const strictXml = () => (strictModule ??= requireHere('@rgrove/parse-xml') as typeof import('@rgrove/parse-xml'));

/** Sloppy XHTML pages (only scanned for images and text): fast-xml-parser, which takes almost anything. */
function lenientXml(): NonNullable<typeof lenientModule> {
  if (lenientModule) return lenientModule;
  const fxp = requireHere('fast-xml-parser') as typeof import('fast-xml-parser');
  lenientModule = { parser: new fxp.XMLParser(LENIENT_OPTIONS), validate: (xml) => fxp.XMLValidator.validate(xml) };
  return lenientModule;
}

const LENIENT_OPTIONS = {
  processEntities: false,
  htmlEntities: false,
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
} as const;

/**
 * Characters XML 1.0 does not allow (C0 controls but tab, line feed and carriage return; U+FFFE, U+FFFF), which
 * the strict parser refuses: a title with a NUL would cost the book all its metadata. They are dropped, raw or as
 * character references (NUL above all, which PostgreSQL refuses in text: one such title failed a whole scan batch
 * there). A reference to a code point XML cannot hold (a surrogate, past U+10FFFF) goes the same way.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const FORBIDDEN_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const CHARACTER_REFERENCE = /&#(x[0-9a-f]+|[0-9]+);/gi;
const isForbiddenControl = (code: number) => code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d;
const isXmlChar = (code: number) =>
  !isForbiddenControl(code) && !(code >= 0xd800 && code <= 0xdfff) && code !== 0xfffe && code !== 0xffff && code <= 0x10ffff;

function withoutForbiddenCharacters(text: string): string {
  const raw = text.replace(FORBIDDEN_CHARACTERS, '');
  if (!raw.includes('&#')) return raw;
  return raw.replace(CHARACTER_REFERENCE, (whole, ref: string) => {
    const code = ref[0] === 'x' || ref[0] === 'X' ? parseInt(ref.slice(1), 16) : parseInt(ref, 10);
    return isXmlChar(code) ? whole : '';
  });
}

/**
 * Plain objects (V8 keeps prototype-less ones as slow dictionaries: a third more per ComicInfo.xml), so a name that
 * would reach the prototype is left out: no metadata format has an element or attribute called `__proto__`.
 */
const emptyNode = (): XmlNode => ({});
const UNSAFE_NAME = '__proto__';

/** `dc:title` → `title`, as the lenient parser's removeNSPrefix does. */
const localName = (name: string) => name.slice(name.indexOf(':') + 1);

/**
 * An element of @rgrove/parse-xml's tree in the shape the readers walk (the one fast-xml-parser produces): child
 * elements by local name, an array when repeated; attributes as `@_name`; the text as `#text`, or the element
 * itself as a string when it has neither attributes nor child elements. Text is already decoded and trimmed.
 */
function toXmlNode(element: XmlElement): XmlNode | string {
  const { XmlCdata, XmlElement, XmlText } = strictXml();
  let node: XmlNode | undefined;
  for (const name in element.attributes) {
    if (name === 'xmlns' || name.startsWith('xmlns:') || localName(name) === UNSAFE_NAME) continue;
    (node ??= emptyNode())[`@_${localName(name)}`] = element.attributes[name];
  }
  let text = '';
  for (const child of element.children) {
    // Entities inside CDATA were decoded before the strict parser too (some writers escape there): kept so.
    if (child instanceof XmlCdata) text += decodeXmlText(child.text);
    else if (child instanceof XmlText) text += child.text;
    else if (child instanceof XmlElement) {
      const name = localName(child.name);
      if (name === UNSAFE_NAME) continue;
      node ??= emptyNode();
      const value = toXmlNode(child);
      const existing = Object.hasOwn(node, name) ? node[name] : undefined;
      if (existing === undefined) node[name] = value;
      else if (Array.isArray(existing)) existing.push(value);
      else node[name] = [existing, value];
    }
  }
  text = text.trim();
  if (!node) return text;
  if (text !== '') node['#text'] = text;
  return node;
}

/**
 * Parses `text`. Metadata documents (ComicInfo.xml, OPF, container.xml) go through a strict parser
 * (@rgrove/parse-xml): it rejects what is not well-formed (a parser that accepts unclosed elements returns half a
 * record), decodes the predefined entities and character references, and leaves any other entity as written
 * (entities are never expanded: no billion laughs, no XXE). It is also several times cheaper than validating and
 * then parsing with fast-xml-parser (ComicInfo.xml was the largest share of a scan's per-book work besides
 * hashing). What it refuses goes to `parseTolerated`. `lenient` is for XHTML pages, often sloppy and only
 * scanned: fast-xml-parser, entities left as written.
 */
export function parseXml(text: string, what: string, options: { lenient?: boolean } = {}): XmlNode {
  if (options.lenient) {
    try {
      const parsed: unknown = lenientXml().parser.parse(stripDoctype(text));
      if (parsed && typeof parsed === 'object') return parsed as XmlNode;
    } catch (err) {
      throw new MediaError('corrupt', `${what} is not well-formed XML (${errorMessage(err)})`, { cause: err });
    }
    throw new MediaError('corrupt', `${what} is empty`);
  }
  // Whitespace before the XML declaration is not allowed, and common enough not to cost a book its metadata.
  const source = withoutForbiddenCharacters(stripDoctype(text)).trimStart();
  if (source === '' || source === '\ufeff') throw new MediaError('corrupt', `${what} is empty`);
  let refusal: unknown;
  try {
    const root = strictXml().parseXml(source, { ignoreUndefinedEntities: true, preserveCdata: true }).root;
    if (!root) throw new MediaError('corrupt', `${what} is empty`);
    const top = emptyNode();
    if (localName(root.name) !== UNSAFE_NAME) top[localName(root.name)] = toXmlNode(root);
    return top;
  } catch (err) {
    if (err instanceof MediaError) throw err;
    refusal = err; // not well-formed to the strict parser, or nested deeper than the stack allows
  }
  return parseTolerated(source, what, refusal);
}

/**
 * What the strict parser refuses but fast-xml-parser's validator always accepted (`--` inside a comment, `&` or `<`
 * in an attribute value, `]]>` in text, `<?XML`), parsed as it was before the strict parser, its text then decoded
 * as the strict parser decodes: sloppy but common in EPUB packages, where a refused OPF costs the whole book. What
 * the validator refuses too is reported with the strict parser's reason.
 */
function parseTolerated(source: string, what: string, refusal: unknown): XmlNode {
  const reason =
    refusal instanceof strictXml().XmlError
      ? `${refusal.message.replace(/ \(line \d+, column \d+\)[\s\S]*$/, '')}, line ${refusal.line}`
      : errorMessage(refusal);
  const notWellFormed = () => new MediaError('corrupt', `${what} is not well-formed XML (${reason})`, { cause: refusal });
  if (lenientXml().validate(source) !== true) throw notWellFormed();
  try {
    const parsed: unknown = lenientXml().parser.parse(source);
    if (isNode(parsed)) return decodeTree(parsed) as XmlNode;
  } catch {
    throw notWellFormed();
  }
  throw new MediaError('corrupt', `${what} is empty`);
}

/** fast-xml-parser's tree with every text and attribute value decoded (it keeps entities as written). */
function decodeTree(value: unknown): unknown {
  if (typeof value === 'string') return decodeXmlText(value);
  if (Array.isArray(value)) return value.map(decodeTree);
  if (!isNode(value)) return value;
  const out = emptyNode();
  for (const [key, child] of Object.entries(value)) if (key !== UNSAFE_NAME) out[key] = decodeTree(child);
  return out;
}

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * Decodes the predefined entities and character references of text that holds markup as text (HTML in a
 * description), dropping the characters XML forbids. Text from `parseXml` is decoded already.
 */
export function decodeXmlText(text: string): string {
  const decoded = text.replace(/&(#x[0-9a-f]+|#[0-9]+|amp|lt|gt|quot|apos);/gi, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      if (isForbiddenControl(code)) return '';
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return PREDEFINED[ref.toLowerCase()] ?? whole;
  });
  return decoded.replace(FORBIDDEN_CHARACTERS, '');
}

export function isNode(value: unknown): value is XmlNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Children of `node` named `name`, always as an array (the parser gives one child as a bare value). */
export function childrenOf(node: unknown, name: string): unknown[] {
  if (!isNode(node)) return [];
  const value = node[name];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** Text content of an element value, trimmed; null when empty. */
export function textOf(value: unknown): string | null {
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) {
      const text = textOf(item);
      if (text !== null) return text;
    }
    return null;
  }
  let raw: unknown = value;
  if (isNode(value)) raw = value['#text'];
  if (typeof raw === 'number' || typeof raw === 'boolean') raw = String(raw);
  if (typeof raw !== 'string') return null;
  const text = raw.trim();
  return text === '' ? null : text;
}

export function attrOf(node: unknown, name: string): string | null {
  if (!isNode(node)) return null;
  const value = node[`@_${name}`];
  return typeof value === 'string' ? value.trim() : null;
}

/** Case-insensitive lookup of a child element, for producers that write `<series>` instead of `<Series>`. */
export function childCaseless(node: unknown, name: string): unknown {
  if (!isNode(node)) return undefined;
  if (name in node) return node[name];
  const lower = name.toLowerCase();
  const key = Object.keys(node).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : node[key];
}
