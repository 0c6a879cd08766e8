import { describe, expect, it } from 'vitest';
import { CblError, cblFileName, parseCbl, writeCbl } from '../../src/lists/read-lists/cbl.js';
import { MatchIndex, comicVineIssues, declaredYear, numberKey, seriesKey } from '../../src/lists/read-lists/match.js';
import { KLAUS_CBL } from './helpers.js';

// The CBL format and the matching rules on their own; the routes are in read-lists.test.ts.

describe('CBL files', () => {
  it('reads the real Klaus list: name, 11 entries, start years, ComicVine ids, the &#38; entity', () => {
    const list = parseCbl(KLAUS_CBL);
    expect(list.name).toBe('[Boom!] Klaus');
    expect(list.entries).toHaveLength(11);
    expect(list.entries[0]).toEqual({ series: 'Klaus', number: '1', volume: '2015', year: '2015', cvSeries: '85771', cvIssue: '505000' });
    expect(list.entries[10]!.series).toBe('Klaus and the Life & Times of Joe Christmas');
  });

  it('reads UTF-8 with a byte-order mark and UTF-16', () => {
    const xml = '<?xml version="1.0"?><ReadingList><Name>Été</Name><Books><Book Series="Astérix" Number="1" /></Books></ReadingList>';
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(xml)]);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml, 'utf16le')]);
    for (const data of [bom, utf16]) expect(parseCbl(data)).toMatchObject({ name: 'Été', entries: [{ series: 'Astérix', number: '1' }] });
  });

  it('refuses what is no reading list, saying why', () => {
    const cases: Array<[string, RegExp]> = [
      ['', /empty/],
      ['not xml at all', /not a ComicRack reading list|not well-formed/],
      ['<ComicInfo><Series>X</Series></ComicInfo>', /root element is <ComicInfo>/],
      ['<ReadingList><Name>x</Name></ReadingList>', /no <Books>/],
      ['<ReadingList><Books></Books></ReadingList>', /no <Book> entries/],
      ['<ReadingList><Books><Book Number="1"/></Books></ReadingList>', /Entry 1 .* no Series/],
      ['<ReadingList><Books><Book Series="a"></Books></ReadingList>', /not well-formed/],
    ];
    for (const [text, message] of cases) expect(() => parseCbl(text), text).toThrow(message);
    expect(() => parseCbl('x')).toThrow(CblError);
  });

  it('never expands entities (no XXE, no billion laughs)', () => {
    const xml = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><ReadingList><Books><Book Series="&x;" Number="1"/></Books></ReadingList>`;
    expect(parseCbl(xml).entries[0]!.series).toBe('&x;');
  });

  it('writes what it reads', () => {
    const list = parseCbl(KLAUS_CBL);
    const again = parseCbl(writeCbl({ name: list.name!, entries: list.entries }));
    expect(again).toEqual(list);
    expect(writeCbl({ name: 'A & B <1>', entries: [] })).toContain('<Name>A &amp; B &lt;1&gt;</Name>');
    expect(cblFileName('DC: Crisis / Part 1?')).toBe('DC_ Crisis _ Part 1_.cbl');
  });
});

describe('Matching rules', () => {
  it('series names: case, punctuation, a leading The, & and "and", a trailing year', () => {
    expect(seriesKey('The Life & Times: Joe (2019)')).toBe(seriesKey('life and times joe'));
    expect(seriesKey('Walking Dead, The')).toBe(seriesKey('The Walking Dead'));
    expect(seriesKey('Astérix')).toBe(seriesKey('ASTERIX'));
    expect(declaredYear('Klaus (2015)')).toBe(2015);
    expect(declaredYear('Klaus')).toBeNull();
  });

  it('numbers: 1 = 001 = 1.0, 1.5 apart, text without leading zeros', () => {
    expect(numberKey('001')).toBe(numberKey('1'));
    expect(numberKey('1.0')).toBe(numberKey('1'));
    expect(numberKey('1.5')).not.toBe(numberKey('1'));
    expect(numberKey('#01a')).toBe('1a');
    expect(numberKey('')).toBeNull();
  });

  it('ComicVine issue ids from links', () => {
    expect(comicVineIssues('{"links":[{"url":"https://comicvine.gamespot.com/x-1/4000-695563/"}]}')).toEqual(['695563']);
    expect(comicVineIssues('{"links":[]}')).toEqual([]);
  });

  it('start year excludes, issue year and ComicVine ids decide, otherwise ambiguous', () => {
    const series = [
      { id: 's2015', name: 'Batman', title: null, path: 'Batman (2016)', year: 2016 },
      { id: 's2011', name: 'Batman (2011)', title: null, path: 'B', year: 2011 },
      { id: 'plain', name: 'Robin', title: null, path: 'Robin', year: null },
      { id: 'plain2', name: 'Robin', title: null, path: 'Robin', year: null },
    ];
    const book = (id: string, series_id: string, number: string, cvIssues: string[] = []) => ({
      id,
      series_id,
      number,
      volume: null,
      year: null,
      cvIssues,
    });
    const index = new MatchIndex(series, [
      book('b16', 's2015', '1'),
      book('b11', 's2011', '1'),
      book('r1', 'plain', '1'),
      book('r2', 'plain2', '1', ['42']),
    ]);
    const entry = (s: string, n: string, volume: string | null, cvIssue: string | null = null) => ({
      series: s,
      number: n,
      volume,
      year: null,
      cvSeries: null,
      cvIssue,
    });
    expect(index.match(entry('Batman', '001', '2011'))).toEqual({ status: 'matched', book_id: 'b11' });
    expect(index.match(entry('Batman', '1', '2016'))).toEqual({ status: 'matched', book_id: 'b16' });
    expect(index.match(entry('Batman', '1', '1940'))).toEqual({ status: 'missing' });
    expect(index.match(entry('Batman', '1', null)).status).toBe('ambiguous');
    expect(index.match(entry('Robin', '1', null)).candidates?.map((c) => c.book_id)).toEqual(['r1', 'r2']);
    expect(index.match(entry('Robin', '1', null, '42'))).toEqual({ status: 'matched', book_id: 'r2' });
    // A book linked to another ComicVine issue is not the entry's.
    expect(index.match(entry('Robin', '1', null, '7'))).toEqual({ status: 'matched', book_id: 'r1' });
    expect(index.match(entry('Robin', '2', null))).toEqual({ status: 'missing' });
  });
});
