import path from 'node:path';
import { makeCbz } from '../media/fixtures.js';

/**
 * The author-filter corpus: books with ComicInfo authors in roles, age ratings and years (Éclair has no
 * ComicInfo), and a second library with one series. Shared by the native and Komga filter tests.
 */
export interface AuthorBook {
  folder: string;
  n: number;
  info?: Record<string, string | number>;
}

export const AUTHOR_BOOKS: AuthorBook[] = [
  {
    folder: 'Astérix',
    n: 1,
    info: { Writer: 'René Goscinny', Penciller: 'Albert Uderzo', AgeRating: 'Everyone', Year: 1961, Genre: 'Humor' },
  },
  {
    folder: 'Astérix',
    n: 2,
    info: { Writer: 'Albert Uderzo', Penciller: 'Albert Uderzo', AgeRating: 'Everyone', Year: 1961, Genre: 'Humor' },
  },
  { folder: 'Batman', n: 1, info: { Writer: 'Bob Kane', Penciller: 'Bill Finger', AgeRating: 'Teen', Year: 1940, Genre: 'Action' } },
  { folder: 'Batman', n: 2, info: { Writer: 'Frank Miller', Penciller: 'Frank Miller', AgeRating: 'Teen', Year: 1940, Genre: 'Action' } },
  {
    folder: 'Dragon Ball',
    n: 1,
    info: { Writer: 'Akira Toriyama', Penciller: 'Akira Toriyama', AgeRating: 'M', Year: 1984, Genre: 'Action' },
  },
  { folder: 'Éclair', n: 1 },
];

/** Writes the books above as `<folder>/<folder> 00N.cbz` with ComicInfo (Series, Number, Title and the extras). */
export async function writeAuthorCorpus(dir: string): Promise<void> {
  for (const b of AUTHOR_BOOKS) {
    await makeCbz(path.join(dir, b.folder), `${b.folder} ${String(b.n).padStart(3, '0')}.cbz`, {
      pages: 2,
      pageSize: { width: 60, height: 90 },
      ...(b.info ? { comicInfo: { Series: b.folder, Number: String(b.n), Title: `${b.folder} ${b.n}`, ...b.info } } : {}),
    });
  }
}

/** A second library: one series by another writer, rated Teen. */
export const writeOtherLibrary = (dir: string) =>
  makeCbz(path.join(dir, 'Zorro'), 'Zorro 001.cbz', {
    pages: 2,
    pageSize: { width: 60, height: 90 },
    comicInfo: {
      Series: 'Zorro',
      Number: '1',
      Title: 'Zorro 1',
      Writer: 'Johnston McCulley',
      AgeRating: 'Teen',
      Year: 1919,
      Genre: 'Adventure',
    },
  }).then(() => undefined);
