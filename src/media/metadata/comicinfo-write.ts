import { createRequire } from 'node:module';
import { MediaError } from '../errors.js';
import { stripDoctype } from './xml.js';

/**
 * Writing ComicInfo.xml (metadata write-back, docs/metadata-editing.md): the elements given are set (or removed,
 * for null) and everything else of the original document is kept as it was, unknown elements, attributes,
 * comments and CDATA included. fast-xml-parser's ordered tree and XMLBuilder do the XML; entities are never
 * expanded (the DOCTYPE is cut out first, as when reading).
 */
export type ComicInfoChanges = ReadonlyMap<string, string | null>;

/** The elements of ComicInfo 2.0/2.1 in schema order (an xs:sequence): a new element goes where the schema puts it. */
const SCHEMA_ORDER = [
  'Title',
  'Series',
  'Number',
  'Count',
  'Volume',
  'AlternateSeries',
  'AlternateNumber',
  'AlternateCount',
  'Summary',
  'Notes',
  'Year',
  'Month',
  'Day',
  'Writer',
  'Penciller',
  'Inker',
  'Colorist',
  'Letterer',
  'CoverArtist',
  'Editor',
  'Translator',
  'Publisher',
  'Imprint',
  'Genre',
  'Tags',
  'Web',
  'PageCount',
  'LanguageISO',
  'Format',
  'BlackAndWhite',
  'Manga',
  'Characters',
  'Teams',
  'Locations',
  'ScanInformation',
  'StoryArc',
  'StoryArcNumber',
  'SeriesGroup',
  'AgeRating',
  'Pages',
  'CommunityRating',
  'MainCharacterOrTeam',
  'Review',
  'GTIN',
].map((name) => name.toLowerCase());

const NEW_DOCUMENT =
  '<?xml version="1.0" encoding="utf-8"?>\n' +
  '<ComicInfo xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">\n</ComicInfo>\n';

const OPTIONS = {
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  // Decodes the predefined entities and character references (`htmlEntities` is what turns on the latter), so
  // that the builder, which escapes every text, writes them back once and not as `&amp;#233;`.
  processEntities: true,
  htmlEntities: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  commentPropName: '#comment',
  cdataPropName: '#cdata',
  suppressEmptyNode: true,
} as const;

type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, string> };

const requireHere = createRequire(import.meta.url);
let fxp: typeof import('fast-xml-parser') | undefined;
/** Loaded at first use, as the readers load theirs (xml.ts): the server rarely writes. */
const xmlLibrary = () => (fxp ??= requireHere('fast-xml-parser') as typeof import('fast-xml-parser'));

const tagOf = (node: OrderedNode): string | undefined => Object.keys(node).find((k) => k !== ':@');
const isWhitespace = (node: OrderedNode | undefined) =>
  node !== undefined && tagOf(node) === '#text' && String((node['#text'] as unknown) ?? '').trim() === '';

/**
 * The document `original` (null: there is none yet) with the elements of `changes` set to their text, or removed
 * for null; null when no element is left (the archive is then better without one). Element names match case-insensitively, as the reader matches them; a repeated element keeps its first
 * occurrence. Throws a MediaError for a document that is not well-formed or has no ComicInfo root: it is never
 * replaced by one that would lose what it holds.
 */
export function updateComicInfoXml(original: string | null, changes: ComicInfoChanges): string | null {
  const { XMLParser, XMLBuilder, XMLValidator } = xmlLibrary();
  const source =
    original === null
      ? NEW_DOCUMENT
      : stripDoctype(original)
          .replace(/^\ufeff/, '')
          .trimStart();
  const valid = XMLValidator.validate(source);
  if (valid !== true) throw new MediaError('corrupt', `ComicInfo.xml is not well-formed XML (${valid.err.msg}); it is left as it is`);
  const tree = new XMLParser(OPTIONS).parse(source) as OrderedNode[];
  const root = tree.find((node) => tagOf(node)?.toLowerCase() === 'comicinfo');
  if (!root) throw new MediaError('corrupt', 'ComicInfo.xml has no <ComicInfo> root element; it is left as it is');
  const rootTag = tagOf(root)!;
  const children = root[rootTag] as OrderedNode[];
  for (const [name, value] of changes) setElement(children, name, value);
  // Readers take an empty <ComicInfo/> for a broken one; no document says the same thing.
  if (!children.some((node) => !(tagOf(node) ?? '#').startsWith('#'))) return null;
  const xml = new XMLBuilder(OPTIONS).build(tree) as string;
  // The builder joins the declaration and the root; one line each reads better.
  return xml.replace(/^(<\?xml[^>]*\?>)(?!\n)/, '$1\n');
}

function setElement(children: OrderedNode[], name: string, value: string | null): void {
  const lower = name.toLowerCase();
  const matches = children.flatMap((node, i) => (tagOf(node)?.toLowerCase() === lower ? [i] : []));
  // Extra occurrences (and the first, when removing) go with the whitespace before them.
  for (const i of [...matches].reverse().slice(0, value === null ? matches.length : matches.length - 1)) {
    children.splice(isWhitespace(children[i - 1]) ? i - 1 : i, isWhitespace(children[i - 1]) ? 2 : 1);
  }
  if (value === null) return;
  const element: OrderedNode = { [name]: [{ '#text': value }] };
  const first = matches[0];
  if (first !== undefined) {
    const existing = children[first]!;
    const tag = tagOf(existing)!;
    children[first] = { [tag]: [{ '#text': value }], ...(existing[':@'] ? { ':@': existing[':@'] } : {}) };
    return;
  }
  // Before the first element the schema puts after this one, with the same indentation; else last.
  const rank = SCHEMA_ORDER.indexOf(lower);
  let at = children.findIndex((node) => {
    const other = SCHEMA_ORDER.indexOf(tagOf(node)?.toLowerCase() ?? '');
    return rank >= 0 && other > rank;
  });
  if (at < 0) {
    at = children.length;
    while (at > 0 && isWhitespace(children[at - 1])) at--;
    const indent = children.find((node, i) => i < at && isWhitespace(node))?.['#text'] ?? '\n  ';
    children.splice(at, 0, { '#text': indent }, element);
    if (at + 2 === children.length) children.push({ '#text': '\n' });
    return;
  }
  const indent = isWhitespace(children[at - 1]) ? String(children[at - 1]!['#text']) : '\n  ';
  children.splice(at, 0, element, { '#text': indent });
}
