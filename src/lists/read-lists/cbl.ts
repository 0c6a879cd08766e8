import { MediaError } from '../../media/errors.js';
import { attrOf, childCaseless, childrenOf, isNode, parseXml, textOf } from '../../media/metadata/xml.js';

/**
 * ComicRack reading lists (.cbl): `<ReadingList><Name/><Books><Book Series Number Volume Year><Database Name="cv"
 * Series Issue/></Book>…</Books></ReadingList>`. `Volume` is the series' start year ("Klaus" of 2015), `Year` the
 * issue's; `Database Name="cv"` carries ComicVine's series and issue ids. Other elements (`NumIssues`, `Matchers`,
 * a book's `Id`) are ignored on import and `NumIssues`/`Matchers` written on export, as ComicRack and the list
 * repositories do.
 */
export interface CblEntry {
  series: string;
  number: string | null;
  volume: string | null;
  year: string | null;
  cvSeries: string | null;
  cvIssue: string | null;
}

export interface CblList {
  name: string | null;
  entries: CblEntry[];
}

/** A file that is no reading list, or one we refuse; the message says why (the route answers 400 with it). */
export class CblError extends Error {
  override name = 'CblError';
}

/** More entries than any published list has (the longest event lists run to a few thousand issues). */
export const MAX_CBL_ENTRIES = 10_000;
const MAX_VALUE_LENGTH = 500;

/** The file's text: UTF-8 (a byte-order mark dropped) or UTF-16 with its mark, as Windows tools write it. */
export function decodeCbl(data: Buffer): string {
  if (data.length >= 2 && data[0] === 0xff && data[1] === 0xfe) return data.subarray(2).toString('utf16le');
  if (data.length >= 2 && data[0] === 0xfe && data[1] === 0xff) {
    const swapped = Buffer.from(data.subarray(2));
    swapped.swap16();
    return swapped.toString('utf16le');
  }
  if (data.length >= 3 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) return data.subarray(3).toString('utf8');
  return data.toString('utf8');
}

const value = (node: unknown, name: string): string | null => {
  const raw = attrOf(node, name) ?? attrOf(node, name.toLowerCase());
  if (raw === null) return null;
  const text = raw.replace(/\s+/g, ' ').trim();
  return text === '' ? null : text.slice(0, MAX_VALUE_LENGTH);
};

/** Parses a .cbl file; throws CblError naming what is wrong. No entity is ever expanded (media/metadata/xml.ts). */
export function parseCbl(data: Buffer | string): CblList {
  const text = typeof data === 'string' ? data : decodeCbl(data);
  if (text.trim() === '') throw new CblError('The file is empty');
  let doc;
  try {
    doc = parseXml(text, 'The file');
  } catch (err) {
    if (err instanceof MediaError) throw new CblError(`${err.message}: not a ComicRack reading list (.cbl)`);
    throw err;
  }
  const rootName = Object.keys(doc)[0];
  const root = childCaseless(doc, 'ReadingList');
  if (!isNode(root)) {
    throw new CblError(
      rootName && rootName.toLowerCase() !== 'readinglist'
        ? `The file is not a ComicRack reading list (.cbl): its root element is <${rootName}>, not <ReadingList>`
        : 'The reading list has no <Books> element',
    );
  }
  const name = textOf(childCaseless(root, 'Name'))?.replace(/\s+/g, ' ').slice(0, 200) ?? null;
  const books = childCaseless(root, 'Books');
  if (books === undefined) throw new CblError('The reading list has no <Books> element');
  const nodes = [...childrenOf(books, 'Book'), ...childrenOf(books, 'book')];
  if (nodes.length === 0) throw new CblError('The reading list has no <Book> entries');
  if (nodes.length > MAX_CBL_ENTRIES)
    throw new CblError(`The reading list has ${nodes.length} entries; at most ${MAX_CBL_ENTRIES} are taken`);
  const entries = nodes.map((node, index): CblEntry => {
    const series = value(node, 'Series');
    if (series === null) throw new CblError(`Entry ${index + 1} of the reading list has no Series`);
    const cv = [...childrenOf(node, 'Database'), ...childrenOf(node, 'database')].find((d) => value(d, 'Name')?.toLowerCase() === 'cv');
    return {
      series,
      number: value(node, 'Number'),
      volume: value(node, 'Volume'),
      year: value(node, 'Year'),
      cvSeries: cv ? value(cv, 'Series') : null,
      cvIssue: cv ? value(cv, 'Issue') : null,
    };
  });
  return { name, entries };
}

const XML_FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g; // eslint-disable-line no-control-regex -- dropping them is the point
const escapeXml = (text: string) =>
  text.replace(XML_FORBIDDEN, '').replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** The reading list as ComicRack writes it (UTF-8, its namespaces, `NumIssues`, one `Book` per entry). */
export function writeCbl(list: { name: string; entries: readonly CblEntry[] }): string {
  const attr = (name: string, v: string | null) => (v === null ? '' : ` ${name}="${escapeXml(v)}"`);
  const books = list.entries.map((e) => {
    const open = `    <Book${attr('Series', e.series)}${attr('Number', e.number)}${attr('Volume', e.volume)}${attr('Year', e.year)}`;
    if (e.cvSeries === null && e.cvIssue === null) return `${open} />`;
    return `${open}>\n      <Database Name="cv"${attr('Series', e.cvSeries)}${attr('Issue', e.cvIssue)} />\n    </Book>`;
  });
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<ReadingList xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
    `  <Name>${escapeXml(list.name)}</Name>`,
    `  <NumIssues>${list.entries.length}</NumIssues>`,
    '  <Books>',
    ...books,
    '  </Books>',
    '  <Matchers />',
    '</ReadingList>',
    '',
  ].join('\n');
}

/** A file name for the list: its name without the characters file systems refuse. */
export function cblFileName(name: string): string {
  const safe = name
    .replace(/[\u0000-\u001f<>:"/\\|?*]/g, '_') // eslint-disable-line no-control-regex -- control characters are refused too
    .trim()
    .slice(0, 150);
  return `${safe || 'reading-list'}.cbl`;
}
