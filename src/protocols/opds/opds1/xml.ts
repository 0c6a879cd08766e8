/**
 * A tiny XML writer: every text node and attribute value goes through `escapeXml`, and element builders take
 * already-rendered children, so no caller ever concatenates raw strings into markup.
 */
export type Attrs = Readonly<Record<string, string | number | null | undefined>>;

/** A rendered XML fragment (only this module makes them). */
export interface Xml {
  readonly xml: string;
}

// Characters XML 1.0 forbids (C0 controls other than tab, LF, CR; lone surrogates; U+FFFE/U+FFFF).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const INVALID = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function escapeXml(text: string): string {
  return text.replace(INVALID, '').replace(/[&<>"']/g, (c) => {
    switch (c) {
      case '&':
        return '&amp;';
      case '<':
        return '&lt;';
      case '>':
        return '&gt;';
      case '"':
        return '&quot;';
      default:
        return '&apos;';
    }
  });
}

function attributes(attrs: Attrs): string {
  let out = '';
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined) continue;
    out += ` ${name}="${escapeXml(String(value))}"`;
  }
  return out;
}

/** `<name attrs>children</name>`, or `<name attrs/>` without children. Falsy children are skipped. */
export function el(name: string, attrs: Attrs = {}, children: ReadonlyArray<Xml | null | undefined | false> = []): Xml {
  const inner = children
    .filter((c): c is Xml => !!c)
    .map((c) => c.xml)
    .join('');
  return { xml: inner ? `<${name}${attributes(attrs)}>${inner}</${name}>` : `<${name}${attributes(attrs)}/>` };
}

/** `<name attrs>text</name>`, the text escaped; null when there is no text. */
export function textEl(name: string, text: string | number | null | undefined, attrs: Attrs = {}): Xml | null {
  if (text === null || text === undefined || text === '') return null;
  return { xml: `<${name}${attributes(attrs)}>${escapeXml(String(text))}</${name}>` };
}

export function xmlDocument(root: Xml): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${root.xml}\n`;
}
