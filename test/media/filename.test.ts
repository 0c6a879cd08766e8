import { describe, expect, it } from 'vitest';
import { parseFileName } from '../../src/media/metadata/filename.js';
import type { ParsedFileName } from '../../src/media/metadata/filename.js';

type Expected = Partial<Pick<ParsedFileName, 'series' | 'title' | 'volume' | 'number' | 'year' | 'authors'>>;

/** Real-world names, by convention; each row lists only the fields it is about (others must be null/empty). */
const CASES: ReadonlyArray<[string, Expected]> = [
  // Western comics, scene style
  ['Batman 001 (2011).cbz', { series: 'Batman', number: '1', year: 2011 }],
  ['Batman #013 (2013) (Digital) (Zone-Empire).cbz', { series: 'Batman', number: '13', year: 2013 }],
  ['The Walking Dead 100 (2012) (Digital).cbr', { series: 'The Walking Dead', number: '100', year: 2012 }],
  ['Saga 054 (2018) (Digital) (Zone-Empire).cbz', { series: 'Saga', number: '54', year: 2018 }],
  ['Amazing Spider-Man 001 (2018).cbz', { series: 'Amazing Spider-Man', number: '1', year: 2018 }],
  ['Batman v2 001 (2011).cbz', { series: 'Batman', volume: 2, number: '1', year: 2011 }],
  ['Detective Comics (2016) 1000.cbz', { series: 'Detective Comics', number: '1000', year: 2016 }],
  ['Batman 12.5 (2012).cbz', { series: 'Batman', number: '12.5', year: 2012 }],
  ['Spawn 001 (1992) (c2c).cbr', { series: 'Spawn', number: '1', year: 1992 }],
  ['Hellboy v01 - Seed of Destruction (1994).cbz', { series: 'Hellboy', volume: 1, title: 'Seed of Destruction', year: 1994 }],
  ['Y - The Last Man 001 (2002).cbz', { series: 'Y - The Last Man', number: '1', year: 2002 }],
  ['2000 AD 2150 (2019).cbz', { series: '2000 AD', number: '2150', year: 2019 }],
  ['100 Bullets 050 (2004).cbz', { series: '100 Bullets', number: '50', year: 2004 }],
  ['Batman_001_(2011).cbz', { series: 'Batman', number: '1', year: 2011 }],
  ['Batman.001.(2011).cbz', { series: 'Batman', number: '1', year: 2011 }],
  ['Superman Annual 001 (2017).cbz', { series: 'Superman Annual', number: '1', year: 2017 }],
  ['Marvel Comics Presents #1.cbz', { series: 'Marvel Comics Presents', number: '1' }],
  ['Watchmen (1986) #1 (of 12).cbz', { series: 'Watchmen', number: '1', year: 1986 }],
  ['Sandman 01 (of 75) (1989).cbz', { series: 'Sandman', number: '1', year: 1989 }],
  ['Batman - Year One (1987).cbz', { series: 'Batman - Year One', year: 1987 }],
  ['Batman 1.cbz', { series: 'Batman', number: '1' }],
  ['001.cbz', { number: '1' }],
  ['Batman #0 (1994).cbz', { series: 'Batman', number: '0', year: 1994 }],
  ['Batman #-1 (1994).cbz', { series: 'Batman', number: '-1', year: 1994 }],
  ['Batman 001a (2011).cbz', { series: 'Batman', number: '1a', year: 2011 }],
  ['Lazarus #1 (2013)(Digital).cbz', { series: 'Lazarus', number: '1', year: 2013 }],
  ['Monstress 001 (2015) (Digital-Empire) [HQ].cbr', { series: 'Monstress', number: '1', year: 2015 }],
  ['Batman (2016) 050.cbz', { series: 'Batman', number: '50', year: 2016 }],
  ['Batman v3 050 (2018).cbz', { series: 'Batman', volume: 3, number: '50', year: 2018 }],
  ['Spider-Man 2099 001 (1992).cbz', { series: 'Spider-Man 2099', number: '1', year: 1992 }],
  ['Batman v Superman (2016).cbz', { series: 'Batman v Superman', year: 2016 }],
  ['Batman 75th Anniversary.cbz', { series: 'Batman 75th Anniversary' }],
  ['Dragon Ball Z - 001.cbz', { series: 'Dragon Ball Z', number: '1' }],
  ['Saga 012 - The Blue Bird.cbz', { series: 'Saga', number: '12', title: 'The Blue Bird' }],
  ['Issue 5.cbz', { number: '5' }],
  ['Batman (May 2013).cbz', { series: 'Batman', year: 2013 }],
  ['The Boys (2006-2012) 001.cbz', { series: 'The Boys', number: '1', year: 2006 }],
  // French and European albums
  ['Astérix T03 - Astérix et les Goths.cbz', { series: 'Astérix', volume: 3, title: 'Astérix et les Goths' }],
  ['Blacksad tome 2 - Arctic Nation.cbz', { series: 'Blacksad', volume: 2, title: 'Arctic Nation' }],
  ['Tintin T01.cbz', { series: 'Tintin', volume: 1 }],
  ['Lucky Luke - Tome 12.cbr', { series: 'Lucky Luke', volume: 12 }],
  // Manga volumes
  ['One Piece v01 (2003) (Digital) (1r0n).cbz', { series: 'One Piece', volume: 1, year: 2003 }],
  ['Berserk Volume 01.cbz', { series: 'Berserk', volume: 1 }],
  ['Naruto Vol. 72 (2015) (Digital).cbz', { series: 'Naruto', volume: 72, year: 2015 }],
  ['Attack on Titan v34 (2021) (Digital) (danke-Empire).cbz', { series: 'Attack on Titan', volume: 34, year: 2021 }],
  ['[Group] Berserk - Vol. 01.cbz', { series: 'Berserk', volume: 1 }],
  ['One-Punch Man v01.cbz', { series: 'One-Punch Man', volume: 1 }],
  ['Yotsuba&! v01.cbz', { series: 'Yotsuba&!', volume: 1 }],
  ['Fullmetal Alchemist 3-in-1 v01.cbz', { series: 'Fullmetal Alchemist 3-in-1', volume: 1 }],
  ['20th Century Boys v01.cbz', { series: '20th Century Boys', volume: 1 }],
  ['Akira Volume 1 (Kodansha) (Digital).cbz', { series: 'Akira', volume: 1 }],
  ['One.Piece.v01.cbz', { series: 'One Piece', volume: 1 }],
  ['Tokyo Ghoul:re v01.cbz', { series: 'Tokyo Ghoul:re', volume: 1 }],
  ['Nausicaä of the Valley of the Wind v01.cbz', { series: 'Nausicaä of the Valley of the Wind', volume: 1 }],
  ['進撃の巨人 第01巻.cbz', { series: '進撃の巨人', volume: 1 }],
  ['Lone Wolf and Cub Omnibus Vol.3.cbz', { series: 'Lone Wolf and Cub Omnibus', volume: 3 }],
  // Manga chapters
  ['One Piece c1001 (2021).cbz', { series: 'One Piece', number: '1001', year: 2021 }],
  ['One Piece - Chapter 1001.cbz', { series: 'One Piece', number: '1001' }],
  ['Chainsaw Man ch. 12.5.cbz', { series: 'Chainsaw Man', number: '12.5' }],
  ['Jujutsu Kaisen Ch.236.cbz', { series: 'Jujutsu Kaisen', number: '236' }],
  ['Solo Leveling - c001 [Group].cbz', { series: 'Solo Leveling', number: '1' }],
  ['Kingdom c700-705.cbz', { series: 'Kingdom', number: '700' }],
  ['Berserk v41 c364 (2021).cbz', { series: 'Berserk', volume: 41, number: '364', year: 2021 }],
  ['Dr. Stone c001.cbz', { series: 'Dr. Stone', number: '1' }],
  ['Chapter 12 - The Beginning.cbz', { number: '12', title: 'The Beginning' }],
  ['My Hero Academia Chapter 7.cbz', { series: 'My Hero Academia', number: '7' }],
  ['Hunter x Hunter v01 c001-c007.cbz', { series: 'Hunter x Hunter', volume: 1, number: '1' }],
  ['Vinland Saga v01 c001.cbz', { series: 'Vinland Saga', volume: 1, number: '1' }],
  ['進撃の巨人 第139話.cbz', { series: '進撃の巨人', number: '139' }],
  ['Tower of God Episode 550.cbz', { series: 'Tower of God', number: '550' }],
  // Light novels
  ['Overlord v01 - The Undead King.epub', { series: 'Overlord', volume: 1, title: 'The Undead King' }],
  ['Sword Art Online Vol. 1 - Aincrad.epub', { series: 'Sword Art Online', volume: 1, title: 'Aincrad' }],
  [
    'Re Zero - Starting Life in Another World, Vol. 1 (light novel).epub',
    { series: 'Re Zero - Starting Life in Another World', volume: 1 },
  ],
  ['Spice and Wolf, Vol. 01.epub', { series: 'Spice and Wolf', volume: 1 }],
  ['Ascendance of a Bookworm Part 1 Volume 1.epub', { series: 'Ascendance of a Bookworm Part 1', volume: 1 }],
  // Ebooks
  ['Brandon Sanderson - Mistborn.epub', { authors: ['Brandon Sanderson'], title: 'Mistborn' }],
  ['Terry Pratchett - Guards! Guards!.epub', { authors: ['Terry Pratchett'], title: 'Guards! Guards!' }],
  ['J. R. R. Tolkien - The Hobbit.epub', { authors: ['J. R. R. Tolkien'], title: 'The Hobbit' }],
  ['Isaac Asimov - Foundation (1951).epub', { authors: ['Isaac Asimov'], title: 'Foundation', year: 1951 }],
  ['Sanderson, Brandon - Elantris.epub', { authors: ['Sanderson, Brandon'], title: 'Elantris' }],
  ['Frank Herbert - Dune 01 - Dune.epub', { authors: ['Frank Herbert'], series: 'Dune', number: '1', title: 'Dune' }],
  ['The Hobbit.epub', { title: 'The Hobbit' }],
  [
    'Harry Potter 1 - Harry Potter and the Sorcerer’s Stone.epub',
    { series: 'Harry Potter', number: '1', title: 'Harry Potter and the Sorcerer’s Stone' },
  ],
  [
    'Ursula K. Le Guin - A Wizard of Earthsea (1968) [retail].epub',
    { authors: ['Ursula K. Le Guin'], title: 'A Wizard of Earthsea', year: 1968 },
  ],
  ['Annual Report 2019.pdf', { number: '2019', series: 'Annual Report' }],
];

describe('file names: series, volume, number, year and title are parsed from file names', () => {
  it('has at least 60 real-world cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(60);
  });

  it.each(CASES)('%s', (name, expected) => {
    const parsed = parseFileName(name);
    expect({
      series: parsed.series,
      title: parsed.title,
      volume: parsed.volume,
      number: parsed.number,
      year: parsed.year,
      authors: parsed.authors,
    }).toEqual({ series: null, title: null, volume: null, number: null, year: null, authors: [], ...expected });
  });

  it('keeps stripped bracket tags and a clean name', () => {
    const parsed = parseFileName('Batman #013 (2013) (Digital) (Zone-Empire).cbz');
    expect(parsed.tags).toEqual(['Digital', 'Zone-Empire']);
    expect(parsed.clean_name).toBe('Batman #013');
    expect(parsed.number_sort).toBe(13);
  });

  it('gives a numeric sort key for fractional numbers', () => {
    expect(parseFileName('Chainsaw Man ch. 12.5.cbz').number_sort).toBe(12.5);
  });

  it('accepts a path and ignores the folders', () => {
    expect(parseFileName('/library/Saga/Saga 001 (2012).cbz').series).toBe('Saga');
  });
});

describe('file names: dates are dates, never numbers or volumes', () => {
  const date = (name: string) => {
    const p = parseFileName(name);
    return { series: p.series, title: p.title, volume: p.volume, number: p.number, year: p.year, month: p.month, day: p.day };
  };

  it('YYYY-MM-DD: "Meeting Notes 2020-05-14" is dated 2020-05-14, without a number', () => {
    expect(date('Meeting Notes 2020-05-14.pdf')).toEqual({
      series: null,
      title: 'Meeting Notes 2020-05-14',
      volume: null,
      number: null,
      year: 2020,
      month: 5,
      day: 14,
    });
  });

  it('YYYY.MM.DD, also in a dotted name', () => {
    expect(date('Meeting Notes 2020.05.14.pdf')).toMatchObject({ number: null, volume: null, year: 2020, month: 5, day: 14 });
    expect(date('Meeting.Notes.2020.05.14.pdf')).toMatchObject({ number: null, volume: null, year: 2020, month: 5, day: 14 });
  });

  it('YYYYMMDD between separators; the scanner sequence number after it stays the number', () => {
    expect(date('Scan_20190612_0001.pdf')).toEqual({
      series: 'Scan',
      title: null,
      volume: null,
      number: '1',
      year: 2019,
      month: 6,
      day: 12,
    });
    expect(date('Strip 20200514.cbz')).toEqual({ series: 'Strip', title: null, volume: null, number: null, year: 2020, month: 5, day: 14 });
  });

  it('a comic issue before a date keeps its number; the date is not part of the series', () => {
    expect(date('Batman 012 2020-05-14.cbz')).toMatchObject({ series: 'Batman', number: '12', year: 2020, month: 5, day: 14 });
    expect(date('Daily Strip 2020-05-14.cbz')).toMatchObject({ series: 'Daily Strip', number: null, volume: null, year: 2020 });
  });

  it('a date in brackets is the date too, not a tag', () => {
    const parsed = parseFileName('Notes (2020-05-14).pdf');
    expect({ year: parsed.year, month: parsed.month, day: parsed.day, tags: parsed.tags }).toEqual({
      year: 2020,
      month: 5,
      day: 14,
      tags: [],
    });
  });

  it('what is not a valid date stays a number: no month 13, no 8 digits glued to letters, a lone year is not a date', () => {
    expect(date('Report 20201340.pdf')).toMatchObject({ number: '20201340', year: null, month: null });
    expect(date('Annual Report 2019.pdf')).toMatchObject({ number: '2019', year: null, month: null });
    expect(date('Scan20190612.cbz')).toMatchObject({ year: null, month: null });
  });
});
