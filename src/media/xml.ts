import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { MediaError, errorMessage } from './errors.js';

/**
 * Safe XML for metadata documents from untrusted books. Entity processing is off (no billion laughs, no XXE);
 * the DOCTYPE is cut out before parsing since no metadata format needs one and the parser rejects external
 * entity declarations outright. The five predefined entities and numeric references are decoded afterwards by
 * `decodeXmlText`, which never expands anything user-defined.
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

const parser = new XMLParser({
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
});

/**
 * Parses `text`. Metadata documents are validated first (the parser alone accepts unclosed elements and
 * would return half a record); `lenient` skips that for XHTML pages, which are often sloppy and only scanned.
 */
export function parseXml(text: string, what: string, options: { lenient?: boolean } = {}): XmlNode {
  const source = stripDoctype(text);
  if (!options.lenient) {
    const verdict = XMLValidator.validate(source);
    if (verdict !== true) {
      throw new MediaError('corrupt', `${what} is not well-formed XML (${verdict.err.msg}, line ${verdict.err.line})`);
    }
  }
  try {
    const parsed: unknown = parser.parse(source);
    if (parsed && typeof parsed === 'object') return parsed as XmlNode;
  } catch (err) {
    throw new MediaError('corrupt', `${what} is not well-formed XML (${errorMessage(err)})`, { cause: err });
  }
  throw new MediaError('corrupt', `${what} is empty`);
}

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * Control characters XML 1.0 does not allow (C0 but tab, line feed and carriage return), raw or as references.
 * The parser passes them through; they are dropped: NUL above all, which PostgreSQL refuses in text (one such
 * title failed a whole scan batch there).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const FORBIDDEN_CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;
const isForbiddenControl = (code: number) => code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d;

export function decodeXmlText(text: string): string {
  const decoded = text.replace(/&(#x[0-9a-f]+|#[0-9]+|amp|lt|gt|quot|apos);/gi, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      if (isForbiddenControl(code)) return '';
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return PREDEFINED[ref.toLowerCase()] ?? whole;
  });
  return decoded.replace(FORBIDDEN_CONTROLS, '');
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

/** Text content of an element value, decoded and trimmed; null when empty. */
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
  const text = decodeXmlText(raw).trim();
  return text === '' ? null : text;
}

/** Text of the first child named `name`. */
export function childText(node: unknown, name: string): string | null {
  for (const child of childrenOf(node, name)) {
    const text = textOf(child);
    if (text !== null) return text;
  }
  return null;
}

export function attrOf(node: unknown, name: string): string | null {
  if (!isNode(node)) return null;
  const value = node[`@_${name}`];
  return typeof value === 'string' ? decodeXmlText(value).trim() : null;
}

/** Case-insensitive lookup of a child element, for producers that write `<series>` instead of `<Series>`. */
export function childCaseless(node: unknown, name: string): unknown {
  if (!isNode(node)) return undefined;
  if (name in node) return node[name];
  const lower = name.toLowerCase();
  const key = Object.keys(node).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : node[key];
}
