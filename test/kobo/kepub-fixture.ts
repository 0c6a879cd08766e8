import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ZipArchive } from '../../src/media/archives/zip-archive.js';
import { resolveLimits } from '../../src/media/limits.js';
import { makeTempDir } from '../helpers/config.js';
import { makeImage, writeZip } from '../media/fixtures.js';

/**
 * A small valid EPUB 3 of prose for the KEPUB tests: sentences across inline elements, character references, a
 * list, an image, a `pre` and a comment, a navigation document, and the cover named the EPUB 2 way (`meta name="cover"`).
 */
export const CHAPTER_ONE = `<h1>Chapter One</h1>
<p>It was a dark &amp; stormy night. The rain fell in torrents! \u201cWho goes there?\u201d she asked.</p>
<p>A&#160;quiet <em>answer came. Nobody</em> moved.<br/>Then a door opened.</p>
<ul><li>First item.</li><li>Second item. With two sentences.</li></ul>
<p><img src="images/figure.png" alt="A figure"/></p>
<pre>Code stays as it is. No spans here.</pre>`;

export const chapterTwo = (words: string) => `<h2>Chapter Two</h2>
<p>Short one. Another one? Yes, ${words}.</p><!-- a comment -->
<p>Last <b>bold</b> words.</p>`;

export const xhtml = (title: string, body: string) => `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" lang="en" xml:lang="en">
<head>
<title>${title}</title>
</head>
<body>
${body}
</body>
</html>
`;

const OPF = `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid" xml:lang="en">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="uid">urn:uuid:7d1f3c2a-5b4e-4f6a-9c8d-0e1f2a3b4c5d</dc:identifier>
    <dc:title>Stormy Night</dc:title>
    <dc:language>en</dc:language>
    <meta property="dcterms:modified">2024-01-01T00:00:00Z</meta>
    <meta name="cover" content="figure"/>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="ch1" href="text/chapter1.xhtml" media-type="application/xhtml+xml"/>
    <item id="ch2" href="text/chapter2.xhtml" media-type="application/xhtml+xml"/>
    <item id="figure" href="text/images/figure.png" media-type="image/png"/>
  </manifest>
  <spine>
    <itemref idref="ch1"/>
    <itemref idref="ch2"/>
  </spine>
</package>
`;

const NAV = xhtml(
  'Contents',
  `<nav epub:type="toc" id="toc"><h1>Contents</h1>
<ol><li><a href="text/chapter1.xhtml">Chapter One</a></li><li><a href="text/chapter2.xhtml">Chapter Two</a></li></ol></nav>`,
);

/** The archive paths of the two chapters (the web reader's locator hrefs). */
export const CHAPTER_PATHS = ['OEBPS/text/chapter1.xhtml', 'OEBPS/text/chapter2.xhtml'] as const;

/** Writes the EPUB; `words` changes chapter two's text (a new version of the file). */
export async function makeProseEpub(dir: string, name: string, words = 'another'): Promise<string> {
  return writeZip(join(dir, name), [
    { name: 'mimetype', data: 'application/epub+zip', store: true },
    {
      name: 'META-INF/container.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>
`,
    },
    { name: 'OEBPS/content.opf', data: OPF },
    { name: 'OEBPS/nav.xhtml', data: NAV },
    { name: CHAPTER_PATHS[0], data: xhtml('Chapter One', CHAPTER_ONE) },
    { name: CHAPTER_PATHS[1], data: xhtml('Chapter Two', chapterTwo(words)) },
    { name: 'OEBPS/text/images/figure.png', data: await makeImage({ width: 40, height: 30, format: 'png', color: '#336699' }) },
  ]);
}

/** Every file of a zip (an EPUB a test downloaded), by name. */
export async function unzip(data: Buffer): Promise<Map<string, Buffer>> {
  const file = join(makeTempDir('kepub-zip-'), 'book.epub');
  await writeFile(file, data);
  const limits = resolveLimits();
  const archive = await ZipArchive.open(file, limits);
  try {
    const out = new Map<string, Buffer>();
    for (const member of archive.members) out.set(member.name, await archive.read(member));
    return out;
  } finally {
    archive.close();
  }
}
