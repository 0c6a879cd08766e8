import { describe, expect, it } from 'vitest';
import { parseComicInfo } from '../../src/media/metadata/comicinfo.js';
import { MediaError } from '../../src/media/errors.js';
import { buildBookMetadata, folderFields, mergeMetadata } from '../../src/media/metadata/metadata.js';
import { parseOpf } from '../../src/media/metadata/opf.js';
import { parseXml, stripDoctype } from '../../src/media/metadata/xml.js';
import { pdfPropertiesFromInfo, pdfPropertiesToFields } from '../../src/media/metadata/pdf-properties.js';
import { comicInfoXml } from './fixtures.js';

describe('ComicInfo.xml source', () => {
  it('maps every field of the schema it knows onto the normalised record', () => {
    const { fields } = parseComicInfo(
      comicInfoXml({
        Title: 'The Court of Owls',
        Series: 'Batman',
        Number: '001',
        Volume: 2,
        Year: 2011,
        Month: 9,
        Day: 21,
        Summary: 'Gotham has a secret.',
        Publisher: 'DC Comics',
        Writer: 'Scott Snyder',
        Penciller: 'Greg Capullo',
        Inker: 'Jonathan Glapion',
        Colorist: 'FCO Plascencia',
        Letterer: 'Richard Starkings',
        CoverArtist: 'Greg Capullo',
        Editor: 'Mike Marts',
        Translator: 'Nobody',
        Genre: 'Superhero, Crime',
        Tags: 'owls; gotham',
        LanguageISO: 'en',
        AgeRating: 'Teen',
        PageCount: 32,
        Web: 'https://comicvine.gamespot.com/batman-1/4000-290000/ https://example.org/batman',
        GTIN: '978-1-4012-3541-3',
        Manga: 'No',
      }),
    );
    expect(fields).toEqual({
      title: 'The Court of Owls',
      series: 'Batman',
      number: '1',
      number_sort: 1,
      volume: 2,
      year: 2011,
      month: 9,
      day: 21,
      summary: 'Gotham has a secret.',
      publisher: 'DC Comics',
      authors: [
        { name: 'Scott Snyder', role: 'writer' },
        { name: 'Greg Capullo', role: 'penciller' },
        { name: 'Jonathan Glapion', role: 'inker' },
        { name: 'FCO Plascencia', role: 'colorist' },
        { name: 'Richard Starkings', role: 'letterer' },
        { name: 'Greg Capullo', role: 'cover' },
        { name: 'Mike Marts', role: 'editor' },
        { name: 'Nobody', role: 'translator' },
      ],
      genres: ['Superhero', 'Crime'],
      tags: ['owls', 'gotham'],
      language: 'en',
      age_rating: 'Teen',
      page_count: 32,
      reading_direction: 'ltr',
      links: [
        { label: 'comicvine.gamespot.com', url: 'https://comicvine.gamespot.com/batman-1/4000-290000/' },
        { label: 'example.org', url: 'https://example.org/batman' },
      ],
      isbn: '9781401235413',
      external_ids: [
        { source: 'gtin', id: '9781401235413' },
        { source: 'comicvine.gamespot.com', id: 'https://comicvine.gamespot.com/batman-1/4000-290000/' },
        { source: 'example.org', id: 'https://example.org/batman' },
      ],
    });
  });

  it('reads Manga=YesAndRightToLeft as right-to-left and a Webtoon format as webtoon', () => {
    expect(parseComicInfo(comicInfoXml({ Manga: 'YesAndRightToLeft' })).fields.reading_direction).toBe('rtl');
    expect(parseComicInfo(comicInfoXml({ Manga: 'Yes', Format: 'Webtoon' })).fields.reading_direction).toBe('webtoon');
    expect(parseComicInfo(comicInfoXml({ Manga: 'Yes' })).fields.reading_direction).toBeUndefined();
  });

  it('keeps decimal numbers as written and sorts them numerically', () => {
    expect(parseComicInfo(comicInfoXml({ Number: '12.5' })).fields).toMatchObject({ number: '12.5', number_sort: 12.5 });
  });

  it('ignores the schema defaults that mean "unknown"', () => {
    const { fields } = parseComicInfo(comicInfoXml({ Volume: -1, Year: -1, AgeRating: 'Unknown', Manga: 'Unknown' }));
    expect(fields).toEqual({});
  });

  it('decodes XML entities and character references but expands no declared entity', () => {
    const xml = `<?xml version="1.0"?>
<!DOCTYPE ComicInfo [
  <!ENTITY lol "lol">
  <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY xxe SYSTEM "file:///etc/passwd">
]>
<ComicInfo><Title>Tom &amp; Jerry &#233;&#x2013; &lol2;</Title><Summary>&xxe;</Summary></ComicInfo>`;
    const { fields } = parseComicInfo(xml);
    expect(fields.title).toBe('Tom & Jerry é– &lol2;');
    expect(fields.summary).toBe('&xxe;');
  });
});

describe('EPUB OPF source', () => {
  const opf = `<?xml version="1.0"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">
    <dc:title>Vol 3</dc:title>
    <dc:creator id="c1">Isuna Hasekura</dc:creator>
    <meta refines="#c1" property="role" scheme="marc:relators">aut</meta>
    <dc:creator opf:role="ill">Jyuu Ayakura</dc:creator>
    <dc:contributor>Helper</dc:contributor>
    <dc:publisher>Yen Press</dc:publisher>
    <dc:language>en-US</dc:language>
    <dc:subject>Fantasy, Romance</dc:subject>
    <dc:description>&lt;p&gt;A merchant &amp;amp; a wolf.&lt;/p&gt;</dc:description>
    <dc:date>2010</dc:date>
    <dc:identifier id="id">urn:uuid:1234</dc:identifier>
    <dc:identifier>urn:isbn:0-306-40615-2</dc:identifier>
    <dc:identifier opf:scheme="MOBI-ASIN">B00ABC</dc:identifier>
    <meta property="belongs-to-collection" id="s">Spice and Wolf</meta>
    <meta refines="#s" property="collection-type">series</meta>
    <meta refines="#s" property="group-position">3</meta>
  </metadata>
  <manifest><item id="a" href="Text/a%20b.xhtml" media-type="application/xhtml+xml"/></manifest>
  <spine><itemref idref="a"/></spine>
</package>`;

  it('maps dc: elements, creator roles, identifiers (ISBN) and the EPUB3 series', () => {
    const pkg = parseOpf(opf, 'OEBPS/content.opf');
    expect(pkg.fields).toEqual({
      title: 'Vol 3',
      authors: [
        { name: 'Isuna Hasekura', role: 'writer' },
        { name: 'Jyuu Ayakura', role: 'illustrator' },
        { name: 'Helper', role: 'other' },
      ],
      publisher: 'Yen Press',
      language: 'en-US',
      genres: ['Fantasy', 'Romance'],
      summary: 'A merchant & a wolf.',
      year: 2010,
      isbn: '0306406152',
      external_ids: [
        { source: 'uuid', id: '1234' },
        { source: 'isbn', id: '0306406152' },
        { source: 'mobi-asin', id: 'B00ABC' },
      ],
      series: 'Spice and Wolf',
      number: '3',
      number_sort: 3,
      page_count: 1,
    });
    expect(pkg.spine.map((item) => item.path)).toEqual(['OEBPS/Text/a b.xhtml']);
  });

  it('reads calibre series metas', () => {
    const calibre = opf
      .replace(/<meta property="belongs-to-collection"[\s\S]*?group-position">3<\/meta>/, '')
      .replace(
        '</metadata>',
        '<meta name="calibre:series" content="Mistborn"/><meta name="calibre:series_index" content="2.5"/></metadata>',
      );
    expect(parseOpf(calibre, 'content.opf').fields).toMatchObject({ series: 'Mistborn', number: '2.5', number_sort: 2.5 });
  });
});

describe('PDF document properties source', () => {
  it('maps Title, Author, Subject, Keywords and CreationDate; Creator is the tool, not an author', () => {
    const properties = pdfPropertiesFromInfo({
      Title: 'Report',
      Author: 'A. Writer & B. Writer',
      Subject: 'Findings',
      Keywords: 'one; two',
      Creator: 'Microsoft Word',
      CreationDate: "D:19991231235959+01'00'",
    });
    expect(properties.creator).toBe('Microsoft Word');
    expect(pdfPropertiesToFields(properties)).toEqual({
      title: 'Report',
      authors: [
        { name: 'A. Writer', role: 'writer' },
        { name: 'B. Writer', role: 'writer' },
      ],
      summary: 'Findings',
      tags: ['one', 'two'],
      year: 1999,
      month: 12,
      day: 31,
    });
  });

  it('ignores titles that only name the producing file', () => {
    expect(pdfPropertiesToFields(pdfPropertiesFromInfo({ Title: 'Microsoft Word - draft7.docx' })).title).toBeUndefined();
  });
});

describe('Metadata sources, from highest to lowest priority: ComicInfo.xml, EPUB (OPF), PDF properties, file name, parent folder', () => {
  it('takes each field from the highest source that has it and says which one', () => {
    const merged = mergeMetadata([
      { source: 'folder', fields: { series: 'Folder Series' } },
      { source: 'filename', fields: { series: 'Name Series', number: '7', number_sort: 7, year: 2001, title: 'Name Title' } },
      { source: 'pdf', fields: { title: 'Pdf Title', summary: 'Pdf summary' } },
      { source: 'opf', fields: { title: 'Opf Title', publisher: 'Opf Publisher' } },
      { source: 'comicinfo', fields: { title: 'ComicInfo Title' } },
    ]);
    expect(merged).toMatchObject({
      title: 'ComicInfo Title',
      publisher: 'Opf Publisher',
      summary: 'Pdf summary',
      series: 'Name Series',
      number: '7',
      year: 2001,
    });
    expect(merged.sources).toEqual({
      title: 'comicinfo',
      publisher: 'opf',
      summary: 'pdf',
      series: 'filename',
      number: 'filename',
      number_sort: 'filename',
      year: 'filename',
    });
  });

  it('takes the parent folder name as the series when nothing else names one', () => {
    const merged = buildBookMetadata({ path: '/library/One Piece/Chapter 0001.cbz', libraryRoot: '/library', format: 'cbz' });
    expect(merged.series).toBe('One Piece');
    expect(merged.sources.series).toBe('folder');
    expect(merged.number).toBe('1');
  });

  it('does not name a series after the library root itself', () => {
    expect(folderFields('/library/Standalone.cbz', '/library')).toEqual({});
    expect(folderFields('/library/Saga/Saga 001.cbz', '/library')).toEqual({ series: 'Saga' });
  });

  it('keeps date parts together from one source', () => {
    const merged = mergeMetadata([
      { source: 'comicinfo', fields: { year: 2020 } },
      { source: 'opf', fields: { year: 2019, month: 5, day: 3 } },
    ]);
    expect([merged.year, merged.month, merged.day]).toEqual([2020, null, null]);
  });

  it('counts pages from the file over any declared count', () => {
    const merged = buildBookMetadata({
      path: '/l/S/S 01.cbz',
      embedded: { source: 'comicinfo', fields: { page_count: 99, title: 'T' } },
      pageCount: 24,
    });
    expect(merged.page_count).toBe(24);
    expect(merged.sources.page_count).toBe('file');
  });

  it('falls back to the cleaned file name for the title', () => {
    const merged = buildBookMetadata({ path: '/l/Batman/Batman 001 (2011) (Digital).cbz', libraryRoot: '/l' });
    expect(merged).toMatchObject({ title: 'Batman 001', series: 'Batman', number: '1', year: 2011 });
  });

  it('reads "Author - Title" from ebook file names', () => {
    const merged = buildBookMetadata({ path: '/l/Books/Isaac Asimov - Foundation.epub', format: 'epub' });
    expect(merged).toMatchObject({ title: 'Foundation', authors: [{ name: 'Isaac Asimov', role: 'writer' }] });
  });
});

describe('stripDoctype', () => {
  it('removes DOCTYPE declarations with their internal subset, in any case, and leaves an unterminated one', () => {
    expect(stripDoctype('<?xml?><!DOCTYPE a [<!ENTITY x "y">]><a>1</a>')).toBe('<?xml?><a>1</a>');
    expect(stripDoctype('<!doctype a><a/><!DocType b [ ] ><b/>')).toBe('<a/><b/>');
    expect(stripDoctype('<a>no declaration</a>')).toBe('<a>no declaration</a>');
    expect(stripDoctype('<!DOCTYPE a [ never closed <a/>')).toBe('<!DOCTYPE a [ never closed <a/>');
    // `>` inside the subset does not end the declaration.
    expect(stripDoctype('<!DOCTYPE a [<!ENTITY x "1">]><a/>')).toBe('<a/>');
  });
});

describe('parseXml (metadata documents)', () => {
  it('gives elements by local name, repeated ones as arrays, attributes as @_name and text decoded once', () => {
    const xml = `\ufeff<?xml version="1.0"?>
<package xmlns="http://www.idpf.org/2007/opf" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <metadata>
    <dc:title id="t"> A &amp;lt; B &#x2013; C </dc:title>
    <dc:creator opf:role="aut" xmlns:opf="x">One</dc:creator>
    <dc:creator>Two</dc:creator>
    <dc:description><![CDATA[<p>x & y</p>]]></dc:description>
    <meta property="p"/>
    <note>a<b>ignored</b>c</note>
  </metadata>
</package>`;
    expect(parseXml(xml, 'test.opf')).toEqual({
      package: {
        metadata: {
          title: { '@_id': 't', '#text': 'A &lt; B – C' },
          creator: [{ '@_role': 'aut', '#text': 'One' }, 'Two'],
          description: '<p>x & y</p>',
          meta: { '@_property': 'p' },
          note: { '#text': 'ac', b: 'ignored' },
        },
      },
    });
  });

  it('forgives what costs real books their metadata: space before the declaration, characters XML forbids, unknown entities', () => {
    const xml =
      '\n  <?xml version="1.0"?><ComicInfo><Title>a\u0000b&#0;c&#x1F;d&#xFFFE;e&#55296;f\uffff</Title><Summary>&nbsp;&copy;</Summary></ComicInfo>';
    expect(parseXml(xml, 'ComicInfo.xml')).toEqual({ ComicInfo: { Title: 'abcdef', Summary: '&nbsp;&copy;' } });
  });

  it('never lets an element named __proto__ reach a prototype; constructor is data', () => {
    const parsed = parseXml(
      '<ComicInfo><__proto__><Title>spoof</Title></__proto__><constructor>c</constructor><Title>real</Title></ComicInfo>',
      'ComicInfo.xml',
    );
    const root = parsed['ComicInfo'] as Record<string, unknown>;
    expect(Object.getPrototypeOf(root)).toBe(Object.prototype);
    expect(root['Title']).toBe('real');
    expect(root['constructor']).toBe('c');
    expect(
      parseComicInfo('<ComicInfo><Title>t</Title><__proto__><Series>spoof</Series></__proto__></ComicInfo>').fields.series,
    ).toBeUndefined();
    expect(({} as Record<string, unknown>)['Series']).toBeUndefined();
  });

  it('still reads what earlier versions read though XML refuses it: -- in a comment, & or < in an attribute, ]]> in text', () => {
    const sloppy =
      '<?xml version="1.0"?><ComicInfo><!-- a -- b --><Title>Tom &amp; Jerry ]]></Title><Pages><Page Image="0" Type="FrontCover" Key="a & b < c"/></Pages></ComicInfo>';
    expect(parseXml(sloppy, 'ComicInfo.xml')).toEqual({
      ComicInfo: { Title: 'Tom & Jerry ]]>', Pages: { Page: { '@_Image': '0', '@_Type': 'FrontCover', '@_Key': 'a & b < c' } } },
    });
    expect(parseComicInfo(sloppy)).toMatchObject({ fields: { title: 'Tom & Jerry ]]>' }, frontCoverIndex: 0 });
    // An EPUB package with such a comment opens: refusing it would cost the whole book, not only its metadata.
    const opf =
      '<package xmlns="http://www.idpf.org/2007/opf"><!-- generated -- by a tool --><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>T &amp; U</dc:title></metadata><manifest/><spine/></package>';
    expect(parseOpf(opf, 'OEBPS/content.opf').fields.title).toBe('T & U');
  });

  it('decodes entities inside CDATA, as before the strict parser', () => {
    expect(parseComicInfo('<ComicInfo><Title><![CDATA[Tom &amp; Jerry <3]]></Title></ComicInfo>').fields.title).toBe('Tom & Jerry <3');
  });

  it('a document nested deeper than the stack allows is corrupt, not a crash', () => {
    const deep = `<ComicInfo>${'<a>'.repeat(20000)}x${'</a>'.repeat(20000)}</ComicInfo>`;
    expect(() => parseXml(deep, 'ComicInfo.xml')).toThrow(MediaError);
  });

  it('refuses what is not well-formed, saying where', () => {
    expect(() => parseXml('<ComicInfo><Title>x</ComicInfo>', 'ComicInfo.xml')).toThrow(
      /^ComicInfo.xml is not well-formed XML \(Missing end tag for element Title, line 1\)$/,
    );
    expect(() => parseXml('<a><b>x</a></b>', 'ComicInfo.xml')).toThrow(/not well-formed XML/);
    expect(() => parseXml('<a>Tom & Jerry</a>', 'ComicInfo.xml')).toThrow(/not well-formed XML/);
    expect(() => parseXml('  ', 'ComicInfo.xml')).toThrow(/^ComicInfo.xml is empty$/);
  });
});
