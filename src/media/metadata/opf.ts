import { posix } from 'node:path';
import { MediaError } from '../errors.js';
import type { Author, AuthorRole, ExternalId, MetadataFields } from './metadata-types.js';
import { dateParts, isbnOf, normaliseNumber, numberSortOf, plainText, positiveInt, splitList } from './metadata-values.js';
import { attrOf, childCaseless, childrenOf, isNode, parseXml, textOf } from './xml.js';

/** An EPUB package document (OPF): what the book says about itself, its files and its reading order. */
export interface ManifestItem {
  id: string;
  /** Path inside the archive, resolved against the OPF's folder. */
  path: string;
  mediaType: string;
  properties: string[];
}

export interface OpfPackage {
  fields: MetadataFields;
  manifest: Map<string, ManifestItem>;
  /** Manifest items in reading order. */
  spine: ManifestItem[];
  /** Archive path of the cover image (or of a cover XHTML page from the EPUB2 guide), when declared. */
  coverPath: string | null;
  coverIsDocument: boolean;
  fixedLayout: boolean;
}

/** MARC relator codes (EPUB creator roles) onto ComicInfo-style roles. */
const ROLE_BY_RELATOR: Record<string, AuthorRole> = {
  aut: 'writer',
  wrt: 'writer',
  art: 'penciller',
  ill: 'illustrator',
  pnc: 'penciller',
  ink: 'inker',
  clr: 'colorist',
  let: 'letterer',
  cov: 'cover',
  cvr: 'cover',
  edt: 'editor',
  trl: 'translator',
};

/** Resolves an href of a document at `fromPath` to an archive path; null when it leaves the archive or is remote. */
export function resolveHref(fromPath: string, href: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(href.split('#')[0] ?? '');
  } catch {
    decoded = href.split('#')[0] ?? '';
  }
  if (decoded === '' || /^[a-z][a-z0-9+.-]*:/i.test(decoded)) return null;
  const joined = posix.normalize(posix.join(posix.dirname(fromPath), decoded));
  return joined.startsWith('../') || joined.startsWith('/') ? null : joined;
}

/** The OPF path from META-INF/container.xml. */
export function parseContainer(xml: string): string | null {
  const container = childCaseless(parseXml(xml, 'META-INF/container.xml'), 'container');
  for (const rootfile of childrenOf(childCaseless(container, 'rootfiles'), 'rootfile')) {
    const path = attrOf(rootfile, 'full-path');
    const type = attrOf(rootfile, 'media-type');
    if (path && (!type || type === 'application/oebps-package+xml')) return path;
  }
  return null;
}

interface Meta {
  name: string | null;
  content: string | null;
  property: string | null;
  refines: string | null;
  id: string | null;
  scheme: string | null;
  text: string | null;
}

function metasOf(metadata: unknown): Meta[] {
  return childrenOf(metadata, 'meta').map((node) => ({
    name: attrOf(node, 'name'),
    content: attrOf(node, 'content'),
    property: attrOf(node, 'property'),
    refines: attrOf(node, 'refines')?.replace(/^#/, '') ?? null,
    id: attrOf(node, 'id'),
    scheme: attrOf(node, 'scheme'),
    text: textOf(node),
  }));
}

/** The text of the first <meta> refining element `id` with `property` (null when none does). */
type Refinement = (id: string | null, property: string) => string | null;

/** Refinements looked up in a map built once: a search of every meta for each creator was quadratic. */
function refinementsOf(metas: readonly Meta[]): Refinement {
  const byTarget = new Map<string, Map<string, string | null>>();
  for (const meta of metas) {
    if (meta.refines === null || meta.property === null) continue;
    let properties = byTarget.get(meta.refines);
    if (!properties) byTarget.set(meta.refines, (properties = new Map()));
    if (!properties.has(meta.property)) properties.set(meta.property, meta.text);
  }
  return (id, property) => (id ? (byTarget.get(id)?.get(property) ?? null) : null);
}

function creatorsOf(metadata: unknown, refinement: Refinement): Author[] {
  const authors: Author[] = [];
  const seen = new Map<string, Set<AuthorRole>>();
  const add = (node: unknown, fallback: AuthorRole): void => {
    const name = textOf(node);
    if (!name) return;
    // EPUB2 puts the role in an attribute, EPUB3 in a refining <meta property="role">.
    const relator = (attrOf(node, 'role') ?? refinement(attrOf(node, 'id'), 'role') ?? '').toLowerCase();
    const role = ROLE_BY_RELATOR[relator] ?? (relator ? 'other' : fallback);
    let roles = seen.get(name);
    if (!roles) seen.set(name, (roles = new Set()));
    if (!roles.has(role)) {
      roles.add(role);
      authors.push({ name, role });
    }
  };
  for (const node of childrenOf(metadata, 'creator')) add(node, 'writer');
  for (const node of childrenOf(metadata, 'contributor')) add(node, 'other');
  return authors;
}

function identifiersOf(metadata: unknown): { isbn: string | null; ids: ExternalId[] } {
  let isbn: string | null = null;
  const ids: ExternalId[] = [];
  for (const node of childrenOf(metadata, 'identifier')) {
    const value = textOf(node);
    if (!value) continue;
    const scheme = (attrOf(node, 'scheme') ?? '').toLowerCase();
    const found = scheme === 'isbn' || /^urn:isbn:/i.test(value) || !scheme ? isbnOf(value) : null;
    if (found) {
      isbn ??= found;
      ids.push({ source: 'isbn', id: found });
    } else if (/^urn:uuid:/i.test(value)) {
      ids.push({ source: 'uuid', id: value.replace(/^urn:uuid:/i, '') });
    } else {
      const urn = /^urn:([a-z0-9-]+):(.+)$/i.exec(value);
      if (urn?.[1] && urn[2]) ids.push({ source: urn[1].toLowerCase(), id: urn[2] });
      else ids.push({ source: scheme || 'identifier', id: value });
    }
  }
  return { isbn, ids };
}

/** Series and position: calibre's metas (EPUB2 habit) or EPUB3 belongs-to-collection with group-position. */
function seriesOf(metas: readonly Meta[], refinement: Refinement): { series: string | null; index: string | null } {
  const calibreSeries = metas.find((meta) => meta.name === 'calibre:series')?.content ?? null;
  if (calibreSeries) return { series: calibreSeries, index: metas.find((meta) => meta.name === 'calibre:series_index')?.content ?? null };
  const collections = metas.filter((meta) => meta.property === 'belongs-to-collection' && meta.text);
  const collection =
    collections.find((meta) => refinement(meta.id, 'collection-type') === 'series') ??
    collections.find((meta) => refinement(meta.id, 'collection-type') === null);
  if (!collection) return { series: null, index: null };
  return { series: collection.text, index: refinement(collection.id, 'group-position') };
}

function manifestOf(manifestNode: unknown, opfPath: string): Map<string, ManifestItem> {
  const manifest = new Map<string, ManifestItem>();
  for (const node of childrenOf(manifestNode, 'item')) {
    const id = attrOf(node, 'id');
    const href = attrOf(node, 'href');
    const path = href === null ? null : resolveHref(opfPath, href);
    if (!id || !path || manifest.has(id)) continue;
    manifest.set(id, {
      id,
      path,
      mediaType: attrOf(node, 'media-type') ?? 'application/octet-stream',
      properties: (attrOf(node, 'properties') ?? '').split(/\s+/).filter(Boolean),
    });
  }
  return manifest;
}

function coverOf(
  manifest: Map<string, ManifestItem>,
  metas: readonly Meta[],
  guide: unknown,
  opfPath: string,
): { path: string; isDocument: boolean } | null {
  const declared = [...manifest.values()].find((item) => item.properties.includes('cover-image'));
  if (declared) return { path: declared.path, isDocument: false };
  const coverMeta = metas.find((meta) => meta.name === 'cover')?.content;
  if (coverMeta) {
    // The content is an item id; some producers put the href there instead.
    const item = manifest.get(coverMeta) ?? [...manifest.values()].find((candidate) => candidate.path === resolveHref(opfPath, coverMeta));
    if (item?.mediaType.startsWith('image/')) return { path: item.path, isDocument: false };
  }
  for (const reference of childrenOf(guide, 'reference')) {
    const href = attrOf(reference, 'href');
    if (attrOf(reference, 'type')?.toLowerCase() === 'cover' && href) {
      const path = resolveHref(opfPath, href);
      if (path) return { path, isDocument: !/\.(jpe?g|png|gif|webp|avif|bmp)$/i.test(path) };
    }
  }
  return null;
}

export function parseOpf(xml: string, opfPath: string): OpfPackage {
  const pkg = childCaseless(parseXml(xml, opfPath), 'package');
  if (!isNode(pkg)) throw new MediaError('corrupt', `${opfPath} has no <package> root element`);
  const metadata = childCaseless(pkg, 'metadata');
  const metas = metasOf(metadata);
  const refinement = refinementsOf(metas);
  const manifest = manifestOf(childCaseless(pkg, 'manifest'), opfPath);
  const spineNode = childCaseless(pkg, 'spine');
  const spine = childrenOf(spineNode, 'itemref')
    .map((ref) => manifest.get(attrOf(ref, 'idref') ?? ''))
    .filter((item): item is ManifestItem => item !== undefined);

  const fields: MetadataFields = {};
  const set = <K extends keyof MetadataFields>(key: K, value: MetadataFields[K] | null | undefined): void => {
    if (value !== null && value !== undefined && !(Array.isArray(value) && value.length === 0)) fields[key] = value;
  };
  set('title', textOf(childrenOf(metadata, 'title')));
  set('authors', creatorsOf(metadata, refinement));
  set('publisher', textOf(childrenOf(metadata, 'publisher')));
  set('language', textOf(childrenOf(metadata, 'language')));
  set(
    'genres',
    childrenOf(metadata, 'subject').flatMap((node) => splitList(textOf(node))),
  );
  set('summary', plainText(textOf(childrenOf(metadata, 'description'))));
  const date = dateParts(textOf(childrenOf(metadata, 'date')));
  set('year', date.year);
  set('month', date.month);
  set('day', date.day);
  const { isbn, ids } = identifiersOf(metadata);
  set('isbn', isbn);
  set('external_ids', ids);
  const { series, index } = seriesOf(metas, refinement);
  set('series', series);
  const number = normaliseNumber(index);
  // calibre writes "1.0" for volume 1.
  const tidy = number?.replace(/\.0+$/, '') ?? null;
  set('number', tidy);
  set('number_sort', numberSortOf(tidy));
  set('page_count', positiveInt(String(spine.length)));
  if (attrOf(spineNode, 'page-progression-direction') === 'rtl') fields.reading_direction = 'rtl';

  const cover = coverOf(manifest, metas, childCaseless(pkg, 'guide'), opfPath);
  const layout = metas.find((meta) => meta.property === 'rendition:layout')?.text;
  const fixedLayoutMeta = metas.find((meta) => meta.name === 'fixed-layout')?.content;
  return {
    fields,
    manifest,
    spine,
    coverPath: cover?.path ?? null,
    coverIsDocument: cover?.isDocument ?? false,
    fixedLayout: layout === 'pre-paginated' || fixedLayoutMeta === 'true',
  };
}
