import { MediaError } from '../errors.js';
import type { Author, AuthorRole, ExternalId, MetadataFields, ReadingDirection, StoryArc, WebLink } from './metadata-types.js';
import { isbnOf, normaliseNumber, numberSortOf, positiveInt, splitList } from './metadata-values.js';
import { attrOf, childCaseless, childrenOf, isNode, parseXml, textOf } from './xml.js';

/** ComicInfo.xml (Anansi schema 1.0–2.1) mapped onto the normalised record. */
export interface ComicInfo {
  fields: MetadataFields;
  /** 0-based index into the page list of the page marked `FrontCover`, when one is. */
  frontCoverIndex: number | null;
}

const ROLE_BY_ELEMENT: ReadonlyArray<[string, AuthorRole]> = [
  ['Writer', 'writer'],
  ['Penciller', 'penciller'],
  ['Inker', 'inker'],
  ['Colorist', 'colorist'],
  ['Letterer', 'letterer'],
  ['CoverArtist', 'cover'],
  ['Editor', 'editor'],
  ['Translator', 'translator'],
];

function readingDirection(manga: string | null, format: string | null): ReadingDirection | undefined {
  if (format && /web\s*-?toon/i.test(format)) return 'webtoon';
  if (manga === 'YesAndRightToLeft') return 'rtl';
  // "Yes" says manga, not the direction: plenty of manhwa and translated manga read left to right.
  if (manga === 'No') return 'ltr';
  return undefined;
}

function webLinks(value: string | null): WebLink[] {
  // The 2.1 draft separates several links with spaces; older writers used commas.
  return splitList(value, /[\s,]+/)
    .filter((url) => /^https?:\/\//i.test(url))
    .map((url) => ({ label: hostOf(url), url }));
}

/**
 * Story arcs as ComicRack writes them: `StoryArc` and `StoryArcNumber` are comma-separated lists paired by
 * position ("Court of Owls, Night of Owls" with "3, 1"); a lone arc takes the whole number ("1,5" stays one number).
 * `AlternateSeries` with `AlternateNumber` is one more reading order. A name given twice counts once, the first time.
 */
function storyArcs(arcs: string | null, numbers: string | null, alternate: string | null, alternateNumber: string | null): StoryArc[] {
  const out: StoryArc[] = [];
  const seen = new Set<string>();
  const add = (name: string, number: string | null | undefined) => {
    const key = name.normalize('NFC').toLowerCase();
    if (name === '' || seen.has(key)) return;
    seen.add(key);
    out.push({ name, number: normaliseNumber(number ?? null) });
  };
  const names = arcs === null ? [] : arcs.split(',').map((part) => part.trim());
  const places = numbers === null ? [] : numbers.split(',').map((part) => part.trim());
  for (const [i, name] of names.entries()) add(name, names.length === 1 ? numbers : places[i]);
  if (alternate !== null) add(alternate, alternateNumber);
  return out;
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return null;
  }
}

export function parseComicInfo(xml: string): ComicInfo {
  const root = childCaseless(parseXml(xml, 'ComicInfo.xml'), 'ComicInfo');
  if (!isNode(root)) throw new MediaError('corrupt', 'ComicInfo.xml has no <ComicInfo> root element');
  // Elements by lower-cased name, built once: most of the ~25 fields looked up are absent from a given file.
  const byLowerName = new Map<string, unknown>();
  for (const key of Object.keys(root)) {
    const lower = key.toLowerCase();
    if (!byLowerName.has(lower)) byLowerName.set(lower, root[key]);
  }
  const text = (name: string): string | null => textOf(name in root ? root[name] : byLowerName.get(name.toLowerCase()));
  const fields: MetadataFields = {};
  const set = <K extends keyof MetadataFields>(key: K, value: MetadataFields[K] | null | undefined): void => {
    if (value !== null && value !== undefined && !(Array.isArray(value) && value.length === 0)) fields[key] = value;
  };

  set('title', text('Title'));
  set('series', text('Series'));
  const number = normaliseNumber(text('Number'));
  set('number', number);
  set('number_sort', numberSortOf(number));
  set('volume', positiveInt(text('Volume')));
  set('year', positiveInt(text('Year'), 9999));
  set('month', positiveInt(text('Month'), 12));
  set('day', positiveInt(text('Day'), 31));
  set('summary', text('Summary'));
  set('publisher', text('Publisher') ?? text('Imprint'));
  const authors: Author[] = [];
  for (const [element, role] of ROLE_BY_ELEMENT) {
    for (const name of splitList(text(element))) authors.push({ name, role });
  }
  set('authors', authors);
  set('genres', splitList(text('Genre')));
  set('tags', splitList(text('Tags')));
  set('language', text('LanguageISO'));
  const ageRating = text('AgeRating');
  set('age_rating', ageRating && ageRating !== 'Unknown' ? ageRating : null);
  set('page_count', positiveInt(text('PageCount')));
  set('reading_direction', readingDirection(text('Manga'), text('Format')));
  set('status', text('Status'));
  set('series_groups', splitList(text('SeriesGroup'), /,/));
  set('story_arcs', storyArcs(text('StoryArc'), text('StoryArcNumber'), text('AlternateSeries'), text('AlternateNumber')));

  const links = webLinks(text('Web'));
  set('links', links);
  const gtin = text('GTIN');
  set('isbn', isbnOf(gtin));
  const externalIds: ExternalId[] = [];
  if (gtin) externalIds.push({ source: 'gtin', id: gtin.replace(/[\s-]/g, '') });
  for (const link of links) externalIds.push({ source: link.label ?? 'url', id: link.url });
  set('external_ids', externalIds);

  return { fields, frontCoverIndex: frontCoverIndex(childCaseless(root, 'Pages')) };
}

function frontCoverIndex(pages: unknown): number | null {
  for (const page of childrenOf(pages, 'Page')) {
    const types = (attrOf(page, 'Type') ?? '').split(/\s+/);
    const image = Number(attrOf(page, 'Image'));
    if (types.includes('FrontCover') && Number.isInteger(image) && image >= 0) return image;
  }
  return null;
}
