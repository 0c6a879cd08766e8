import type { AnyNode, CDATA, Document, Element, Text } from 'domhandler';
import { DomUtils, ElementType, Parser, parseDocument } from 'htmlparser2';
import { isWhiteSpace, splitSentences, type TextUnit } from './sentences.js';

/**
 * An XHTML content document parsed as XML, every node with its offsets in the source: the KEPUB conversion inserts
 * its elements at those offsets and leaves every other byte as it was (see kepubify.ts).
 */
export interface ParsedContent {
  source: string;
  document: Document;
  /** The root element (`html`). */
  root: Element | null;
  head: Element | null;
  body: Element | null;
}

/** A Kobo span: `kobo.P.S`, a sentence (or an image) of block P. */
export interface KoboSpan {
  id: string;
  /** Source offsets of what it wraps, `[start, end)`. */
  start: number;
  end: number;
  /** Where it begins as a browser's DOM has it: a text node and the offset (UTF-16 units, references decoded) in it, or an image. */
  node: Text | Element;
  offset: number;
}

export const isElement = (node: AnyNode): node is Element =>
  node.type === ElementType.Tag || node.type === ElementType.Script || node.type === ElementType.Style;
export const isText = (node: AnyNode): node is Text => node.type === ElementType.Text;
export const isCData = (node: AnyNode): node is CDATA => node.type === ElementType.CDATA;

export function parseContent(source: string): ParsedContent {
  const document = parseDocument(source, { xmlMode: true, withStartIndices: true, withEndIndices: true });
  const root = document.children.find(isElement) ?? null;
  const child = (parent: Element | null, name: string) =>
    parent?.children.find((c): c is Element => isElement(c) && localName(c) === name) ?? null;
  return { source, document, root, head: child(root, 'head'), body: child(root, 'body') };
}

/** An element's name without its namespace prefix, lower case (XHTML elements are lower case; `xhtml:p` is a p). */
export function localName(element: Element): string {
  const name = element.name;
  return name.slice(name.indexOf(':') + 1).toLowerCase();
}

const references = new Map<string, string>();

/** What a character reference stands for, as an HTML parser reads it (`&nbsp;` too, which plain XML does not know). */
function decodeReference(reference: string): string {
  let value = references.get(reference);
  if (value === undefined) {
    value = '';
    new Parser(
      {
        ontext: (text) => {
          value += text;
        },
      },
      { decodeEntities: true },
    ).end(reference);
    if (references.size < 4096) references.set(reference, value);
  }
  return value;
}

const REFERENCE_NAME = /^[#A-Za-z0-9]$/;

/**
 * The characters of a text node as written in the source: a character reference is one unit (so a sentence never
 * ends inside `&amp;`), classified by what it stands for.
 */
export function unitsOf(content: ParsedContent, node: Text): TextUnit[] {
  const { source } = content;
  const start = node.startIndex ?? 0;
  const end = (node.endIndex ?? start - 1) + 1;
  const units: TextUnit[] = [];
  for (let i = start; i < end;) {
    if (source[i] === '&') {
      let j = i + 1;
      while (j < end && j - i <= 40 && REFERENCE_NAME.test(source[j]!)) j++;
      if (j < end && source[j] === ';' && j > i + 1) {
        units.push({ start: i, end: j + 1, value: decodeReference(source.slice(i, j + 1)) });
        i = j + 1;
        continue;
      }
    }
    const code = source.codePointAt(i)!;
    const length = code > 0xffff ? 2 : 1;
    units.push({ start: i, end: i + length, value: source.slice(i, i + length) });
    i += length;
  }
  return units;
}

/** How long a text node is in a browser's DOM (UTF-16 units, references decoded). */
export function domLength(content: ParsedContent, node: Text | CDATA): number {
  if (isCData(node)) return node.children.reduce((sum, c) => sum + (isText(c) ? c.data.length : 0), 0);
  return unitsOf(content, node).reduce((sum, unit) => sum + unit.value.length, 0);
}

/** Elements whose text keeps no spans (kepubify: script, style, pre, audio, video, svg, math). */
const VERBATIM = new Set(['script', 'style', 'pre', 'audio', 'video', 'svg', 'math']);
/** Elements that start a new block number (P) for the spans inside them, when they hold any. */
const BLOCKS = new Set(['p', 'ol', 'ul', 'table', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

const hasClass = (element: Element, name: string) => (element.attribs.class ?? '').split(/\s+/).includes(name);

/** Whether the body has Kobo spans already (a KEPUB, or a book converted before): it is then left as it is. */
export function hasKoboSpans(content: ParsedContent): boolean {
  return content.body !== null && DomUtils.findOne((e) => hasClass(e, 'koboSpan'), content.body.children, true) !== null;
}

/** The Kobo spans a document has already (a book that is a KEPUB in the library), in document order. */
export function existingKoboSpans(content: ParsedContent): Element[] {
  return content.body
    ? DomUtils.findAll((e) => hasClass(e, 'koboSpan') && /^kobo\.\d+\.\d+$/.test(e.attribs.id ?? ''), content.body.children)
    : [];
}

/**
 * The spans kepubify would add to the body, in document order: each text run split into sentences, each sentence a
 * span numbered `kobo.P.S` (P counts blocks — p, lists, tables, headings — that hold spans; S counts sentences
 * within P, from 1); an image is a block of its own. White space is left out of spans except directly in a p.
 * Empty when the document has no body or has spans already.
 */
export function koboSpans(content: ParsedContent): KoboSpan[] {
  const spans: KoboSpan[] = [];
  if (!content.body || hasKoboSpans(content)) return spans;
  let block = 0;
  let sentence = 0;
  let nextBlock = false;
  const add = (span: Omit<KoboSpan, 'id'>) => {
    sentence += 1;
    spans.push({ id: `kobo.${block}.${sentence}`, ...span });
  };
  // Depth first, in document order, without recursion (a hostile document may nest deeply).
  const stack: AnyNode[] = [...content.body.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isText(node)) {
      const units = unitsOf(content, node);
      const inParagraph = node.parent !== null && isElement(node.parent) && localName(node.parent) === 'p';
      let offset = 0;
      let u = 0;
      for (const [start, end] of splitSentences(units)) {
        let text = '';
        while (u < units.length && units[u]!.start < end) text += units[u++]!.value;
        const before = offset;
        offset += text.length;
        if (!inParagraph && isWhiteSpace(text)) continue;
        if (nextBlock) {
          block += 1;
          sentence = 0;
          nextBlock = false;
        }
        add({ start, end, node, offset: before });
      }
      continue;
    }
    if (!isElement(node)) continue; // comments, CDATA sections, processing instructions: as they are
    const name = localName(node);
    if (name === 'img') {
      block += 1;
      sentence = 0;
      nextBlock = false;
      add({ start: node.startIndex ?? 0, end: (node.endIndex ?? 0) + 1, node, offset: 0 });
      continue;
    }
    if (VERBATIM.has(name)) continue;
    if (BLOCKS.has(name)) nextBlock = true;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return spans;
}
