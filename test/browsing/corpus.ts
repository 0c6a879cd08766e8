import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { makeCbz, makeImage } from '../media/fixtures.js';

export interface SeriesSpec {
  folder: string;
  books: number;
  info?: Record<string, string | number>;
}

/** Series of the browsing tests; metadata comes from ComicInfo.xml inside each CBZ. */
export const SERIES: SeriesSpec[] = [
  {
    folder: 'Astérix',
    books: 3,
    info: {
      Series: 'Astérix',
      Publisher: 'Dargaud',
      LanguageISO: 'fr',
      Genre: 'Humor, Adventure',
      Tags: 'classic',
      Status: 'Ended',
      Year: 1961,
      Summary: "Les aventures du petit Gaulois et d'un dragon",
    },
  },
  {
    folder: 'Batman',
    books: 2,
    info: {
      Series: 'Batman',
      Publisher: 'DC Comics',
      LanguageISO: 'en',
      Genre: 'Action, Crime',
      Tags: 'dark',
      Status: 'Ongoing',
      Year: 1940,
    },
  },
  {
    folder: 'Calvin and Hobbes',
    books: 1,
    info: { Series: 'Calvin and Hobbes', Publisher: 'Andrews McMeel', LanguageISO: 'en', Genre: 'Humor', Status: 'Ended', Year: 1985 },
  },
  {
    folder: 'Dragon Ball',
    books: 3,
    info: {
      Series: 'Dragon Ball',
      Publisher: 'Shueisha',
      LanguageISO: 'ja',
      Genre: 'Action, Martial Arts',
      Tags: 'manga, classic',
      Status: 'Ended',
      Year: 1984,
    },
  },
  { folder: 'Éclair', books: 1 },
];

/** Writes the corpus: books `<Series> 00N.cbz` with N pages + 1 (so page counts and sizes differ), and one corrupt file. */
export async function writeCorpus(dir: string): Promise<void> {
  for (const s of SERIES) {
    for (let n = 1; n <= s.books; n++) {
      await makeCbz(path.join(dir, s.folder), `${s.folder} ${String(n).padStart(3, '0')}.cbz`, {
        pages: n + 1,
        pageSize: { width: 60, height: 90 },
        ...(s.info ? { comicInfo: { ...s.info, Number: String(n), Title: `${s.folder} ${n}` } } : {}),
      });
    }
  }
  await mkdir(path.join(dir, 'Broken'), { recursive: true });
  await writeFile(path.join(dir, 'Broken', 'Broken 001.cbz'), Buffer.from('this is not a zip archive at all'));
}

/** A book whose page bytes the tests know: page 1 JPEG 800×1200, page 2 PNG 400×600. */
export async function writePagesBook(dir: string): Promise<{ page1: Buffer; page2: Buffer }> {
  const page1 = await makeImage({ width: 800, height: 1200, format: 'jpeg', noise: true });
  const page2 = await makeImage({ width: 400, height: 600, format: 'png' });
  await makeCbz(path.join(dir, 'Pages'), 'Pages 001.cbz', {
    pages: [
      { name: '001.jpg', data: page1 },
      { name: '002.png', data: page2 },
    ],
    comicInfo: { Series: 'Pages', Number: '1', Title: 'Known pages' },
  });
  return { page1, page2 };
}
