import type { AnyNode, CDATA, Element, ParentNode, Text } from 'domhandler';
import { collapse, parse, type CfiPart } from 'foliate-js/epubcfi.js';
import { DomUtils, parseDocument } from 'htmlparser2';
import type { ZipArchive } from '../archives/zip-archive.js';
import type { MediaLimits } from '../limits.js';
import { parseContainer, parseOpf } from '../metadata/opf.js';
import { domLength, existingKoboSpans, isCData, isElement, isText, koboSpans, parseContent, type ParsedContent } from './content.js';

/**
 * Positions inside a content document both ways between a Kobo span (`kobo.P.S`, what a Kobo reading a KEPUB
 * reports) and what the web reader keeps (an EPUB CFI as foliate-js writes it, and the share of the section read).
 * The spans are numbered on the original document exactly as the conversion numbers them (content.ts), so no map
 * needs keeping: the document is read again when a position is converted.
 */

/** One spine document of an EPUB, parsed, with the CFI steps of its itemref in the package document. */
export interface EpubDocument {
  /** Its path inside the archive (the web reader's locator `href`). */
  path: string;
  /** `/6/4` (with `[id]` assertions where the package document has ids), as foliate-js names the section. */
  section: string | null;
  content: ParsedContent;
}

/** A place in a document: its CFI and the share of the body's text before it. */
export interface DocumentPosition {
  cfi: string | null;
  progression: number;
}

type TextLike = Text | CDATA;
const isTextLike = (node: AnyNode): node is TextLike => isText(node) || isCData(node);
type Indexed = Element | TextLike[] | 'first' | 'last' | 'before' | 'after' | null;

/**
 * The children of a node as EPUB CFI numbers them, as foliate-js does (epubcfi.js `indexChildNodes`): elements at
 * even indices, the text between them (consecutive text nodes, comments left out) at odd ones, virtual ends around.
 */
function indexChildNodes(node: ParentNode): Indexed[] {
  const nodes: Indexed[] = [];
  for (const child of node.children) {
    if (!isTextLike(child) && !isElement(child)) continue;
    const last = nodes[nodes.length - 1];
    if (isTextLike(child)) {
      if (Array.isArray(last)) last.push(child);
      else nodes.push([child]);
    } else if (last !== undefined && !Array.isArray(last)) nodes.push(null, child);
    else nodes.push(child);
  }
  const isElementStep = (x: Indexed | undefined) => x !== undefined && x !== null && typeof x === 'object' && !Array.isArray(x);
  if (isElementStep(nodes[0])) nodes.unshift('first');
  if (isElementStep(nodes[nodes.length - 1])) nodes.push('last');
  return ['before', ...nodes, 'after'];
}

const escapeCfi = (text: string) => text.replace(/[\^[\](),;=]/g, '^$&');
const idStep = (node: AnyNode) => (isElement(node) && node.attribs.id ? `[${escapeCfi(node.attribs.id)}]` : '');

/** CFI steps from the root element down to `node` (`/4/2/1:15`), the offset counted over its whole text chunk. */
function pathOf(content: ParsedContent, node: Element | TextLike, offset: number | null): string {
  let steps = '';
  let current: AnyNode = node;
  let at = offset;
  while (current.parent && current.parent !== content.document && current !== content.root) {
    const parent: ParentNode = current.parent;
    const target = current;
    const indexed = indexChildNodes(parent);
    const index = indexed.findIndex((x) => (Array.isArray(x) ? x.includes(target as TextLike) : x === target));
    const chunk = indexed[index];
    if (Array.isArray(chunk) && at !== null) {
      for (const x of chunk) {
        if (x === target) break;
        at += domLength(content, x);
      }
    }
    steps = `/${index}${idStep(target)}${at !== null && index % 2 === 1 ? `:${at}` : ''}${steps}`;
    at = null;
    current = parent as AnyNode;
  }
  return steps;
}

/** Text offsets of a document in DOM order (all text, CDATA included): where each text node and element starts and ends. */
interface TextOffsets {
  text: Map<TextLike, number>;
  elements: Map<Element, [number, number]>;
}

function textOffsets(content: ParsedContent): TextOffsets {
  const text = new Map<TextLike, number>();
  const elements = new Map<Element, [number, number]>();
  let at = 0;
  // Without recursion: [node, entering] pairs, the exit of an element after its children.
  const stack: Array<[AnyNode, boolean]> = content.root ? [[content.root, true]] : [];
  while (stack.length > 0) {
    const [node, entering] = stack.pop()!;
    if (isTextLike(node)) {
      text.set(node, at);
      at += domLength(content, node);
    } else if (isElement(node)) {
      if (!entering) {
        elements.get(node)![1] = at;
        continue;
      }
      elements.set(node, [at, at]);
      stack.push([node, false]);
      for (let i = node.children.length - 1; i >= 0; i--) stack.push([node.children[i]!, true]);
    }
  }
  return { text, elements };
}

/** Everything a document's positions are converted with, computed once per document. */
export interface SpanIndex {
  document: EpubDocument;
  offsets: TextOffsets;
  /** In document order: each span's id, CFI steps in the document and text offset. */
  spans: { id: string; steps: string; at: number }[];
  bodyStart: number;
  bodyEnd: number;
}

export function spanIndex(document: EpubDocument): SpanIndex {
  const { content } = document;
  const offsets = textOffsets(content);
  const element = (id: string, node: Element) => ({ id, steps: pathOf(content, node, null), at: offsets.elements.get(node)?.[0] ?? 0 });
  // A book that is a KEPUB already went as it is: its own spans are the ones the device reports.
  const existing = existingKoboSpans(content);
  const spans =
    existing.length > 0
      ? existing.map((span) => element(span.attribs.id!, span))
      : koboSpans(content).map((span) => {
          if (!isText(span.node)) return element(span.id, span.node);
          const node = span.node;
          return { id: span.id, steps: pathOf(content, node, span.offset), at: (offsets.text.get(node) ?? 0) + span.offset };
        });
  const [bodyStart, bodyEnd] = (content.body && offsets.elements.get(content.body)) ?? [0, 0];
  return { document, offsets, spans, bodyStart, bodyEnd };
}

const share = (index: SpanIndex, at: number) =>
  index.bodyEnd > index.bodyStart ? Math.min(1, Math.max(0, (at - index.bodyStart) / (index.bodyEnd - index.bodyStart))) : 0;

/** Where span `id` begins, for the web reader; null when the document has no such span. */
export function positionOfSpan(index: SpanIndex, id: string): DocumentPosition | null {
  const span = index.spans.find((s) => s.id === id);
  if (!span) return null;
  const { section } = index.document;
  return { cfi: section === null ? null : `epubcfi(${section}!${span.steps})`, progression: share(index, span.at) };
}

/** The text offset a CFI's document steps point at (foliate-js `partsToNode`), or null when they lead nowhere. */
function offsetOfSteps(index: SpanIndex, parts: CfiPart[]): number | null {
  const { content } = index.document;
  const { text, elements } = index.offsets;
  const last = parts[parts.length - 1];
  if (!content.root || !last) return null;
  if (last.id) {
    const byId = DomUtils.findOne((e) => e.attribs.id === last.id, [content.root], true);
    if (byId) return elements.get(byId)?.[0] ?? null;
  }
  let node: Indexed = content.root;
  let parent: Element = content.root;
  for (const { index: step } of parts) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return null;
    parent = node;
    node = indexChildNodes(node)[step] ?? null;
    if (node === 'first' || node === 'before') return elements.get(parent)?.[0] ?? null;
    if (node === 'last' || node === 'after') return elements.get(parent)?.[1] ?? null;
  }
  if (node === null || typeof node !== 'object') return null;
  if (!Array.isArray(node)) return elements.get(node)?.[0] ?? null;
  let remaining = last.offset ?? 0;
  for (const x of node) {
    const length = domLength(content, x);
    if (remaining <= length) return (text.get(x) ?? 0) + remaining;
    remaining -= length;
  }
  const tail = node[node.length - 1]!;
  return (text.get(tail) ?? 0) + domLength(content, tail);
}

/**
 * The span a web reader's position is in: the one its CFI points into (the last span beginning at or before that
 * place: the device opens where that sentence starts, never after text not yet read), else the one at `progression`
 * of the body's text, else the first. Null when the document has no spans.
 */
export function spanAt(index: SpanIndex, position: { cfi?: string | undefined; progression?: number | undefined }): string | null {
  if (index.spans.length === 0) return null;
  let at: number | null = null;
  if (position.cfi) {
    try {
      const parts = collapse(parse(position.cfi));
      // The first part names the section in the package document; the last one the place in the document.
      if (parts.length > 1) at = offsetOfSteps(index, parts[parts.length - 1]!);
    } catch {
      at = null; // not a CFI foliate-js reads: the share read, below
    }
  }
  if (at === null && position.progression !== undefined)
    at = index.bodyStart + Math.min(1, Math.max(0, position.progression)) * (index.bodyEnd - index.bodyStart);
  if (at === null) return index.spans[0]!.id;
  let found = index.spans[0]!;
  for (const span of index.spans) {
    if (span.at > at) break;
    found = span;
  }
  return found.id;
}

/** The CFI steps of a spine item in the package document, as foliate-js makes them (epubcfi.js `fromElements`). */
export function sectionSteps(opf: string, itemId: string): string | null {
  const document = parseDocument(opf, { xmlMode: true });
  const pkg = document.children.find(isElement);
  if (!pkg) return null;
  const top = indexChildNodes(pkg);
  const spineIndex = top.findIndex(
    (x) => x !== null && typeof x === 'object' && !Array.isArray(x) && x.name.replace(/^.*:/, '') === 'spine',
  );
  const spine = top[spineIndex] as Element | undefined;
  if (!spine) return null;
  const refs = indexChildNodes(spine);
  const refIndex = refs.findIndex((x) => x !== null && typeof x === 'object' && !Array.isArray(x) && x.attribs.idref === itemId);
  const ref = refs[refIndex] as Element | undefined;
  if (!ref) return null;
  return `/${spineIndex}${idStep(spine)}/${refIndex}${idStep(ref)}`;
}

/** Whether an archive path is the document a device or reader names (relative to the package or to the container). */
export function namesDocument(path: string, wanted: string): boolean {
  let name = wanted.split('#')[0]!.replace(/^\/+/, '');
  try {
    name = decodeURIComponent(name);
  } catch {
    // kept as sent
  }
  return name !== '' && (path === name || path.endsWith(`/${name}`) || name.endsWith(`/${path}`));
}

/** The spine document of the EPUB in `archive` that `wanted` names, parsed; null when there is none. */
export async function readEpubDocument(archive: ZipArchive, limits: MediaLimits, wanted: string): Promise<EpubDocument | null> {
  const container = archive.get('META-INF/container.xml');
  const opfPath = container ? parseContainer(await archive.readText(container, limits.maxXmlBytes)) : null;
  const opfMember = opfPath ? archive.get(opfPath) : undefined;
  if (!opfPath || !opfMember) return null;
  const opfText = await archive.readText(opfMember, limits.maxXmlBytes);
  const item = parseOpf(opfText, opfPath).spine.find((i) => namesDocument(i.path, wanted));
  const member = item ? archive.get(item.path) : undefined;
  if (!item || !member) return null;
  const source = await archive.readText(member, limits.maxXmlBytes);
  return { path: item.path, section: sectionSteps(opfText, item.id), content: parseContent(source) };
}
