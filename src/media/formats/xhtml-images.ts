import { resolveHref } from '../metadata/opf.js';
import { isNode, parseXml, type XmlNode } from '../metadata/xml.js';

/** What an EPUB content document shows: the images it references and how much text it has besides. */
export interface DocumentContent {
  images: string[];
  textLength: number;
}

function walk(node: XmlNode, visit: (name: string, node: unknown) => void): void {
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith('@_')) continue;
    for (const child of Array.isArray(value) ? (value as unknown[]) : [value]) {
      visit(key, child);
      if (isNode(child)) walk(child, visit);
    }
  }
}

/**
 * Reads the body of an XHTML page for `<img src>` and SVG `<image href>` (namespace prefixes are dropped by the
 * parser, so `xlink:href` arrives as `href`). Image-only comic EPUBs wrap each page in such a document.
 */
export function documentContent(xhtml: string, documentPath: string): DocumentContent {
  const root = parseXml(xhtml, documentPath, { lenient: true });
  const html = root['html'];
  const body = isNode(html) && isNode(html['body']) ? html['body'] : root;
  const images: string[] = [];
  let textLength = 0;
  walk(body, (name, child) => {
    if (name === '#text' || typeof child === 'string') {
      if (typeof child === 'string' && name !== 'title') textLength += child.replace(/\s+|&nbsp;|&#160;/g, '').length;
      return;
    }
    if (!isNode(child)) return;
    const src = name === 'img' ? child['@_src'] : name === 'image' ? child['@_href'] : undefined;
    if (typeof src === 'string') {
      const path = resolveHref(documentPath, src);
      if (path) images.push(path);
    }
  });
  return { images, textLength };
}
