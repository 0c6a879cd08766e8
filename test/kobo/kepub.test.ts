import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseXml } from '@rgrove/parse-xml';
import { DomUtils } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { ZipArchive } from '../../src/media/archives/zip-archive.js';
import { koboSpans, parseContent } from '../../src/media/kepub/content.js';
import { convertToKepub, kepubifyContent, markCoverImage } from '../../src/media/kepub/kepubify.js';
import { positionOfSpan, readEpubDocument, spanAt, spanIndex } from '../../src/media/kepub/locations.js';
import { resolveLimits } from '../../src/media/limits.js';
import { makeTempDir, testDatabaseType } from '../helpers/config.js';
import { epubcheck, epubcheckTitle, noEpubcheck } from '../helpers/epubcheck.js';
import { CHAPTER_ONE, CHAPTER_PATHS, makeProseEpub, unzip, xhtml } from './kepub-fixture.js';

const limits = resolveLimits();

/** The body's content of a converted fragment, between the wrappers the conversion adds. */
function convertedBody(fragment: string): string {
  const out = kepubifyContent(xhtml('t', fragment));
  if (out === null) throw new Error('not converted');
  const start = out.indexOf('<div id="book-columns"><div id="book-inner">') + '<div id="book-columns"><div id="book-inner">'.length;
  return out.slice(start, out.lastIndexOf('</div></div>')).trim();
}

const bodyText = (source: string) => DomUtils.textContent(parseContent(source).body!);

async function converted(): Promise<{ original: string; kepub: Buffer }> {
  const original = await makeProseEpub(makeTempDir('kepub-src-'), 'stormy.epub');
  const archive = await ZipArchive.open(original, limits);
  try {
    return { original, kepub: await convertToKepub(archive, limits, new Date('2024-01-01T00:00:00Z')) };
  } finally {
    archive.close();
  }
}

describe('EPUB → KEPUB', () => {
  // kepubify's own expectations (kepub/transform_test.go), the cases that are well-formed XML.
  it.each([
    [
      '<p>Sentence 1. Sentence 2. Sentence 3.</p>',
      '<p><span class="koboSpan" id="kobo.1.1">Sentence 1. </span><span class="koboSpan" id="kobo.1.2">Sentence 2. </span><span class="koboSpan" id="kobo.1.3">Sentence 3.</span></p>',
    ],
    [
      '<p>Sentence 1. Sentence 2.</p><p>Sentence 3.</p><ul><li>Sentence 4</li><li>Sentence 5</li></ul><table><tbody><tr><td>Test</td></tr><tr><td>Test</td></tr></tbody></table>',
      '<p><span class="koboSpan" id="kobo.1.1">Sentence 1. </span><span class="koboSpan" id="kobo.1.2">Sentence 2.</span></p><p><span class="koboSpan" id="kobo.2.1">Sentence 3.</span></p><ul><li><span class="koboSpan" id="kobo.3.1">Sentence 4</span></li><li><span class="koboSpan" id="kobo.3.2">Sentence 5</span></li></ul><table><tbody><tr><td><span class="koboSpan" id="kobo.4.1">Test</span></td></tr><tr><td><span class="koboSpan" id="kobo.4.2">Test</span></td></tr></tbody></table>',
    ],
    [
      '<p>Sentence 1. Sentence 2. Stray text\nAnother sentence.</p>',
      '<p><span class="koboSpan" id="kobo.1.1">Sentence 1. </span><span class="koboSpan" id="kobo.1.2">Sentence 2. </span><span class="koboSpan" id="kobo.1.3">Stray text\nAnother sentence.</span></p>',
    ],
    [
      '<p>This is a test.\n    This is another sentence on the next line.<span> </span>Another sentence.</p>\n    <p>Another paragraph.</p><p> </p><p></p>',
      '<p><span class="koboSpan" id="kobo.1.1">This is a test.\n    </span><span class="koboSpan" id="kobo.1.2">This is another sentence on the next line.</span><span> </span><span class="koboSpan" id="kobo.1.3">Another sentence.</span></p>\n    <p><span class="koboSpan" id="kobo.2.1">Another paragraph.</span></p><p><span class="koboSpan" id="kobo.3.1"> </span></p><p></p>',
    ],
    [
      '<p>Sentence<b> 1. Sente<i>nce <span>2. Se</span>nt</i>en<a href="test.html">ce 3. Another word</a></b></p>',
      '<p><span class="koboSpan" id="kobo.1.1">Sentence</span><b><span class="koboSpan" id="kobo.1.2"> 1. </span><span class="koboSpan" id="kobo.1.3">Sente</span><i><span class="koboSpan" id="kobo.1.4">nce </span><span><span class="koboSpan" id="kobo.1.5">2. </span><span class="koboSpan" id="kobo.1.6">Se</span></span><span class="koboSpan" id="kobo.1.7">nt</span></i><span class="koboSpan" id="kobo.1.8">en</span><a href="test.html"><span class="koboSpan" id="kobo.1.9">ce 3. </span><span class="koboSpan" id="kobo.1.10">Another word</span></a></b></p>',
    ],
    [
      '<p>Touch this.</p><script>not this</script><style>or this</style><pre>or this</pre><audio>or this</audio><video>or this</video><p>Touch this.</p>',
      '<p><span class="koboSpan" id="kobo.1.1">Touch this.</span></p><script>not this</script><style>or this</style><pre>or this</pre><audio>or this</audio><video>or this</video><p><span class="koboSpan" id="kobo.2.1">Touch this.</span></p>',
    ],
    [
      '<p>One.</p><img src="test"/><p>Three.</p>',
      '<p><span class="koboSpan" id="kobo.1.1">One.</span></p><span class="koboSpan" id="kobo.2.1"><img src="test"/></span><p><span class="koboSpan" id="kobo.3.1">Three.</span></p>',
    ],
    [
      '<p>One.</p><p> </p><p><!-- comment --></p><p>Two.</p><p><b>Three.</b></p>',
      '<p><span class="koboSpan" id="kobo.1.1">One.</span></p><p><span class="koboSpan" id="kobo.2.1"> </span></p><p><!-- comment --></p><p><span class="koboSpan" id="kobo.3.1">Two.</span></p><p><b><span class="koboSpan" id="kobo.4.1">Three.</span></b></p>',
    ],
    [
      '<svg xmlns="http://www.w3.org/2000/svg"><g><text y="20">kepubify</text></g></svg><p>&#160;&amp; so on</p>',
      '<svg xmlns="http://www.w3.org/2000/svg"><g><text y="20">kepubify</text></g></svg><p><span class="koboSpan" id="kobo.1.1">&#160;&amp; so on</span></p>',
    ],
  ])('spans as kepubify makes them: %s', (fragment, expected) => {
    expect(convertedBody(fragment)).toBe(expected);
  });

  it('adds the wrappers and the style once, keeps every other byte, and leaves a converted document alone', () => {
    const source = xhtml('Chapter One', CHAPTER_ONE);
    const out = kepubifyContent(source)!;
    expect(out).toContain(
      '<title>Chapter One</title>\n<style type="text/css" class="kobostylehacks">div#book-inner { margin-top: 0; margin-bottom: 0;}</style></head>',
    );
    expect(out).toContain('<body><div id="book-columns"><div id="book-inner">\n<h1>');
    expect(out).toContain('</pre>\n</div></div></body>');
    // Removing what was inserted gives the source back, byte for byte.
    const inserted =
      /<span class="koboSpan" id="kobo\.\d+\.\d+">|<\/span>|<div id="book-columns"><div id="book-inner">|<\/div><\/div>(?=<\/body>)|<style type="text\/css" class="kobostylehacks">[^<]*<\/style>/g;
    expect(out.replace(inserted, '')).toBe(source);
    expect(() => parseXml(out)).not.toThrow();
    expect(bodyText(out)).toBe(bodyText(source));
    expect(kepubifyContent(out)).toBeNull();
    // Sentences across inline elements and references, the image a block of its own, pre untouched.
    const spans = koboSpans(parseContent(source)).map((s) => [s.id, source.slice(s.start, s.end)]);
    expect(spans).toEqual([
      ['kobo.1.1', 'Chapter One'],
      ['kobo.2.1', 'It was a dark &amp; stormy night. '],
      ['kobo.2.2', 'The rain fell in torrents! '],
      ['kobo.2.3', '\u201cWho goes there?\u201d '],
      ['kobo.2.4', 'she asked.'],
      ['kobo.3.1', 'A&#160;quiet '],
      ['kobo.3.2', 'answer came. '],
      ['kobo.3.3', 'Nobody'],
      ['kobo.3.4', ' moved.'],
      ['kobo.3.5', 'Then a door opened.'],
      ['kobo.4.1', 'First item.'],
      ['kobo.4.2', 'Second item. '],
      ['kobo.4.3', 'With two sentences.'],
      ['kobo.5.1', '<img src="images/figure.png" alt="A figure"/>'],
    ]);
  });

  it('marks the cover image the way the Kobo finds it', () => {
    const opf = (item: string) => `<package><metadata><meta name="cover" content="c"/></metadata><manifest>${item}</manifest></package>`;
    expect(markCoverImage(opf('<item id="c" href="c.jpg" media-type="image/jpeg"/>'))).toBe(
      opf('<item properties="cover-image" id="c" href="c.jpg" media-type="image/jpeg"/>'),
    );
    expect(markCoverImage(opf('<item id="c" href="c.svg" media-type="image/svg+xml" properties="svg"/>'))).toBe(
      opf('<item id="c" href="c.svg" media-type="image/svg+xml" properties="svg cover-image"/>'),
    );
    expect(markCoverImage(opf('<item id="c" href="c.jpg" media-type="image/jpeg" properties="cover-image"/>'))).toBeNull();
  });

  it('converts a whole EPUB: spans in every content document, the text unchanged, everything else as it was', async () => {
    const { original, kepub } = await converted();
    expect(kepub.subarray(30, 38).toString()).toBe('mimetype');
    const before = await unzip(await readFile(original));
    const after = await unzip(kepub);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const name of ['OEBPS/nav.xhtml', ...CHAPTER_PATHS]) {
      const text = after.get(name)!.toString();
      expect(text, name).toContain('class="koboSpan"');
      expect(text, name).toContain('<div id="book-columns"><div id="book-inner">');
      expect(bodyText(text), name).toBe(bodyText(before.get(name)!.toString()));
    }
    expect(after.get('OEBPS/text/images/figure.png')!.equals(before.get('OEBPS/text/images/figure.png')!)).toBe(true);
    expect(after.get('OEBPS/content.opf')!.toString()).toContain(
      '<item properties="cover-image" id="figure" href="text/images/figure.png" media-type="image/png"/>',
    );
  });

  it('maps a Kobo span to a CFI the web reader opens at, and a CFI back to its span', async () => {
    const archive = await ZipArchive.open(await makeProseEpub(makeTempDir('kepub-loc-'), 'stormy.epub'), limits);
    try {
      const document = (await readEpubDocument(archive, limits, 'text/chapter1.xhtml'))!;
      expect(document).toMatchObject({ path: CHAPTER_PATHS[0], section: '/6/2' });
      const index = spanIndex(document);
      // body /4, its second element (the first p) /4, its text /1, after "It was a dark & stormy night. ".
      const second = positionOfSpan(index, 'kobo.2.2')!;
      expect(second.cfi).toBe(`epubcfi(/6/2!/4/4/1:${'It was a dark & stormy night. '.length})`);
      expect(second.progression).toBeGreaterThan(0.1);
      expect(second.progression).toBeLessThan(0.3);
      // The image: an element step, no offset.
      expect(positionOfSpan(index, 'kobo.5.1')?.cfi).toBe('epubcfi(/6/2!/4/10/2)');
      // As foliate-js makes them (its fromRange, in Chromium, at each sentence's first character): inside inline
      // elements, after one, and a second sentence of a list item.
      expect(['kobo.3.2', 'kobo.3.4', 'kobo.4.3'].map((id) => positionOfSpan(index, id)?.cfi)).toEqual([
        'epubcfi(/6/2!/4/6/2/1:0)',
        'epubcfi(/6/2!/4/6/3:0)',
        'epubcfi(/6/2!/4/8/4/1:13)',
      ]);
      expect(positionOfSpan(index, 'kobo.9.9')).toBeNull();
      let previous = -1;
      for (const span of index.spans) {
        const position = positionOfSpan(index, span.id)!;
        expect(spanAt(index, { cfi: position.cfi! }), span.id).toBe(span.id);
        expect(position.progression).toBeGreaterThan(previous);
        previous = position.progression;
      }
      // Places the web reader saves: a range (its start counts), a point inside a sentence, a share of the chapter.
      expect(spanAt(index, { cfi: 'epubcfi(/6/2!/4/6,/5:4,/5:10)' })).toBe('kobo.3.5');
      expect(spanAt(index, { cfi: 'epubcfi(/6/2!/4/6/2/1:8)' })).toBe('kobo.3.2');
      expect(spanAt(index, { cfi: 'not a cfi', progression: 0 })).toBe('kobo.1.1');
      expect(spanAt(index, { progression: 1 })).toBe('kobo.5.1');
      expect(spanAt(index, {})).toBe('kobo.1.1');
      // A book that is a KEPUB already: its own spans (an element each, their CFI points at it).
      const kepub = spanIndex({ ...document, content: parseContent(kepubifyContent(xhtml('Chapter One', CHAPTER_ONE))!) });
      expect(kepub.spans.map((s) => s.id)).toEqual(index.spans.map((s) => s.id));
      expect(positionOfSpan(kepub, 'kobo.2.2')?.cfi).toBe('epubcfi(/6/2!/4/2[book-columns]/2[book-inner]/4/4[kobo.2.2])');
      expect(spanAt(kepub, { cfi: 'epubcfi(/6/2!/4/2[book-columns]/2[book-inner]/4/4[kobo.2.2]/1:3)' })).toBe('kobo.2.2');
      // The second chapter's itemref, and a document the spine does not have.
      expect((await readEpubDocument(archive, limits, CHAPTER_PATHS[1]))?.section).toBe('/6/4');
      expect(await readEpubDocument(archive, limits, 'OEBPS/missing.xhtml')).toBeNull();
    } finally {
      archive.close();
    }
  });

  // The conversion does not touch the database: checked once, on the SQLite run.
  const onPostgres = testDatabaseType() === 'postgres';
  it.skipIf(noEpubcheck || onPostgres)(
    epubcheckTitle(
      onPostgres
        ? 'the KEPUB passes epubcheck (skipped on the PostgreSQL run: no database involved, checked on the SQLite run)'
        : 'the KEPUB passes epubcheck',
    ),
    async () => {
      const { kepub } = await converted();
      const file = path.join(makeTempDir('kepub-check-'), 'stormy.kepub.epub');
      await writeFile(file, kepub);
      expect(await epubcheck(file)).toMatch(/No errors or warnings detected/);
    },
    180_000,
  );
});
