import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createCatalogApp, scan, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { waitForTask, type TaskBody } from '../scanner/helpers.js';
import { comicInfoXml, makeCbz, makeEpub } from '../media/fixtures.js';
import { realFixture } from '../media/real-fixtures.js';
import { updateComicInfoXml } from '../../src/media/metadata/comicinfo-write.js';
import { parseComicInfo } from '../../src/media/metadata/comicinfo.js';

interface Entry {
  name: string;
  method: number;
  data: Buffer;
}

/** Every entry of a zip file, in order, with its content inflated. */
async function entries(file: string): Promise<Entry[]> {
  const zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false });
  const out: Entry[] = [];
  try {
    for await (const entry of zip.eachEntry()) {
      const chunks: Buffer[] = [];
      for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
      out.push({ name: entry.fileName, method: entry.compressionMethod, data: Buffer.concat(chunks) });
    }
  } finally {
    zip.close();
  }
  return out;
}

const comicInfoOf = async (file: string) => (await entries(file)).find((e) => e.name === 'ComicInfo.xml')?.data.toString('utf8');
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const withoutComicInfo = (list: Entry[]) => list.filter((e) => e.name !== 'ComicInfo.xml');

interface BookBody {
  id: string;
  series_id: string;
  title: string;
  path: string;
  format: string;
  hash: string;
  file_size: number;
  write_back: { task_ids: string[]; queued: number; not_written: { book_id: string; reason: string }[] } | null;
}
interface WriteBackResult {
  written: string[];
  not_written: { book_id: string; reason: string }[];
}

const ORIGINAL = `<?xml version="1.0" encoding="utf-8"?>
<ComicInfo xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <Title>Old Title</Title>
  <Series>Alpha</Series>
  <Number>1</Number>
  <Notes>Caf&#233; &amp; more</Notes>
  <ScanInformation>kept as written</ScanInformation>
  <CustomThing source="someone">not in the schema</CustomThing>
  <Pages>
    <Page Image="1" Type="FrontCover" />
  </Pages>
</ComicInfo>
`;

describe('ComicInfo.xml writing', () => {
  it('sets, adds and removes elements and keeps everything else', () => {
    const xml = updateComicInfoXml(
      ORIGINAL,
      new Map([
        ['Title', 'New <Title> & co'],
        ['Genre', 'Drama, Mystery'],
        ['Number', null],
      ]),
    )!;
    const parsed = parseComicInfo(xml);
    expect(parsed.fields.title).toBe('New <Title> & co');
    expect(parsed.fields.genres).toEqual(['Drama', 'Mystery']);
    expect(parsed.fields.number).toBeUndefined();
    expect(parsed.frontCoverIndex).toBe(1);
    expect(xml).toContain('<Notes>Café &amp; more</Notes>');
    expect(xml).toContain('<CustomThing source="someone">not in the schema</CustomThing>');
    // Schema order: Genre before ScanInformation and Pages.
    expect(xml.indexOf('<Genre>')).toBeLessThan(xml.indexOf('<ScanInformation>'));
    expect(updateComicInfoXml(null, new Map([['Series', 'Fresh']]))).toMatch(/<ComicInfo[^>]*>\s*<Series>Fresh<\/Series>\s*<\/ComicInfo>/);
    expect(() => updateComicInfoXml('<ComicInfo><Title>open', new Map([['Title', 'x']]))).toThrow(/not well-formed/);
    expect(updateComicInfoXml('<ComicInfo><Genre>x</Genre></ComicInfo>', new Map([['Genre', null]]))).toBeNull();
  });
});

describe('metadata write-back into CBZ files', () => {
  let t: CatalogTestApp;
  let libraryId: string;
  let dir: string;
  let books: Map<string, BookBody>;
  const file = (name: string) => path.join(dir, 'Alpha', name);

  const edit = async (id: string, body: Record<string, unknown>) => {
    const res = await api<BookBody>(t, 'PATCH', `/api/v1/books/${id}`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const finished = async (taskId: string) => {
    const task = await waitForTask(t, taskId);
    expect(task.status, task.error ?? '').toBe('completed');
    return task as TaskBody & { result: WriteBackResult };
  };

  beforeAll(async () => {
    t = await createCatalogApp();
    ({ id: libraryId, dir } = await scannedLibrary(t, async (root) => {
      const alpha = path.join(root, 'Alpha');
      mkdirSync(alpha);
      await makeCbz(alpha, 'a1.cbz', { pages: 2, store: true, comicInfo: ORIGINAL, pageSize: { width: 60, height: 90 } });
      await makeCbz(alpha, 'a2.cbz', {
        pages: 2,
        pageSize: { width: 60, height: 90 },
        extra: [{ name: 'notes/readme.txt', data: 'hello' }],
      });
      await makeCbz(alpha, 'a3.cbz', {
        pages: 1,
        comicInfo: comicInfoXml({ Series: 'Alpha', Number: 3 }),
        pageSize: { width: 60, height: 90 },
      });
      copyFileSync(realFixture('test_comic.cbr'), path.join(alpha, 'a4.cbr'));
      await makeEpub(alpha, 'a5.epub', { pages: 1, metadata: { title: 'Book Five' } });
      await makeCbz(alpha, 'a6.cbz', {
        pages: 1,
        comicInfo: '<ComicInfo><Series>Alpha</Series><Title>Unclosed</ComicInfo>',
        pageSize: { width: 60, height: 90 },
      });
    }));
    const list = await api<Paged<BookBody>>(t, 'GET', `/api/v1/books?library_id=${libraryId}&pageSize=50`);
    books = new Map(list.body.data.map((b) => [path.basename(b.path), b]));
    expect([...books.keys()].sort()).toEqual(['a1.cbz', 'a2.cbz', 'a3.cbz', 'a4.cbr', 'a5.epub', 'a6.cbz']);
  }, 30_000);

  afterAll(async () => {
    chmodSync(file('a3.cbz'), 0o644);
    await t?.close();
  });

  it('is off by default: an edit leaves the file as it was', async () => {
    const library = await api<{ scanning_config: { write_comicinfo: boolean } }>(t, 'GET', `/api/v1/libraries/${libraryId}`);
    expect(library.body.scanning_config.write_comicinfo).toBe(false);
    const before = sha256(file('a1.cbz'));
    const res = await edit(books.get('a1.cbz')!.id, { summary: 'Only in the catalog' });
    expect(res.write_back).toBeNull();
    expect(sha256(file('a1.cbz'))).toBe(before);

    const on = await api(t, 'PATCH', `/api/v1/libraries/${libraryId}`, { scanning_config: { write_comicinfo: true, watch: false } });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect((on.body as { scanning_config: { write_comicinfo: boolean } }).scanning_config.write_comicinfo).toBe(true);
  });

  it('writes a new ComicInfo.xml, copies every other entry unchanged, and the next scan sees nothing new', async () => {
    const a1 = books.get('a1.cbz')!;
    const original = await entries(file('a1.cbz'));
    const progress = await api(t, 'PUT', `/api/v1/books/${a1.id}/progress`, { current_page: 1 });
    expect(progress.status).toBe(200);

    const res = await edit(a1.id, {
      title: 'The Right Title',
      authors: [
        { name: 'Ann Writer', role: 'writer' },
        { name: 'Ben Inker', role: 'inker' },
      ],
    });
    expect(res.title).toBe('The Right Title');
    expect(res.write_back).toMatchObject({ queued: 1, not_written: [] });
    // A second edit before the first is written: both reach the file, one after the other.
    const second = await edit(a1.id, { tags: ['fixed'] });
    for (const report of [res.write_back!, second.write_back!]) {
      const task = await finished(report.task_ids[0]!);
      expect(task.result).toEqual({ written: [a1.id], not_written: [] });
    }

    const written = await entries(file('a1.cbz'));
    expect(withoutComicInfo(written)).toEqual(withoutComicInfo(original)); // names, order, method and bytes
    expect(written.map((e) => e.name)).toEqual(original.map((e) => e.name));
    const info = parseComicInfo((await comicInfoOf(file('a1.cbz')))!);
    expect(info.fields).toMatchObject({ title: 'The Right Title', tags: ['fixed'], series: 'Alpha', number: '1' });
    expect(info.fields.authors).toEqual([
      { name: 'Ann Writer', role: 'writer' },
      { name: 'Ben Inker', role: 'inker' },
    ]);
    expect(info.fields.summary).toBeUndefined(); // edited while the library did not write back
    const xml = (await comicInfoOf(file('a1.cbz')))!;
    expect(xml).toContain('<CustomThing source="someone">not in the schema</CustomThing>');
    expect(xml).toContain('<Notes>Café &amp; more</Notes>');
    expect(readdirSync(path.join(dir, 'Alpha')).filter((n) => n.includes('colophon-tmp'))).toEqual([]);

    const after = await api<BookBody>(t, 'GET', `/api/v1/books/${a1.id}`);
    expect(after.body.hash).toBe(sha256(file('a1.cbz')));
    expect(after.body.hash).not.toBe(a1.hash);
    expect(after.body.file_size).toBe(readFileSync(file('a1.cbz')).length);
    expect(after.body.title).toBe('The Right Title');

    const rescan = await scan(t, libraryId);
    expect(rescan.result).toMatchObject({ books_added: 0, books_updated: 0, books_deleted: 0, books_restored: 0, books_unchanged: 6 });
    const again = await api<BookBody & { progress: { current_page: number } | null }>(t, 'GET', `/api/v1/books/${a1.id}`);
    expect(again.body.id).toBe(a1.id);
    expect(again.body.progress?.current_page).toBe(1);
    expect(again.body.hash).toBe(after.body.hash);
  });

  it('a series edit reaches every CBZ of the series; other formats, a read-only file and a broken ComicInfo.xml are said not written; undo writes back', async () => {
    chmodSync(file('a3.cbz'), 0o444);
    const a3Before = sha256(file('a3.cbz'));
    const a6Before = sha256(file('a6.cbz'));
    const a2Original = await entries(file('a2.cbz'));
    const seriesId = books.get('a1.cbz')!.series_id;
    const res = await api<{ metadata: { genres: string[] }; write_back: BookBody['write_back'] }>(
      t,
      'PATCH',
      `/api/v1/series/${seriesId}`,
      {
        genres: ['Drama'],
        reading_direction: 'rtl',
      },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.metadata.genres).toEqual(['Drama']);
    const report = res.body.write_back!;
    expect(report.queued).toBe(4);
    expect(report.not_written.map((n) => n.book_id).sort()).toEqual([books.get('a4.cbr')!.id, books.get('a5.epub')!.id].sort());
    expect(report.not_written.map((n) => n.reason).sort()).toEqual([
      'only CBZ files are written; this one is cbr',
      'only CBZ files are written; this one is epub',
    ]);
    const task = await finished(report.task_ids[0]!);
    expect(task.result.written.sort()).toEqual([books.get('a1.cbz')!.id, books.get('a2.cbz')!.id].sort());
    const notWritten = new Map(task.result.not_written.map((n) => [n.book_id, n.reason]));
    expect(notWritten.size).toBe(2);
    expect(notWritten.get(books.get('a3.cbz')!.id)).toBe('the file is read-only');
    expect(notWritten.get(books.get('a6.cbz')!.id)).toMatch(/^ComicInfo\.xml is not well-formed XML .*; it is left as it is$/);
    expect(sha256(file('a3.cbz'))).toBe(a3Before);
    expect(sha256(file('a6.cbz'))).toBe(a6Before);

    const a2 = await entries(file('a2.cbz'));
    expect(withoutComicInfo(a2)).toEqual(a2Original); // deflated entries, one in a folder, kept
    expect(parseComicInfo((await comicInfoOf(file('a2.cbz')))!).fields).toMatchObject({ genres: ['Drama'], reading_direction: 'rtl' });
    const series = await api<{ metadata: { genres: string[]; reading_direction: string } }>(t, 'GET', `/api/v1/series/${seriesId}`);
    expect(series.body.metadata).toMatchObject({ genres: ['Drama'], reading_direction: 'rtl' });

    const history = await api<Paged<{ id: string; field: string }>>(t, 'GET', `/api/v1/series/${seriesId}/history`);
    const entry = history.body.data.find((e) => e.field === 'genres')!;
    const undo = await api<{ write_back: BookBody['write_back'] }>(t, 'POST', `/api/v1/history/${entry.id}/undo`);
    expect(undo.status, JSON.stringify(undo.body)).toBe(200);
    await finished(undo.body.write_back!.task_ids[0]!);
    // a2 had no ComicInfo.xml: with its only elements undone, it has none again, and is otherwise as it was.
    expect(await entries(file('a2.cbz'))).toEqual(a2Original);
    expect(parseComicInfo((await comicInfoOf(file('a1.cbz')))!).fields).toMatchObject({ title: 'The Right Title', series: 'Alpha' });
    expect(parseComicInfo((await comicInfoOf(file('a1.cbz')))!).fields.genres).toBeUndefined();
  });
});
