import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { PDFDocument, PDFName, PDFNumber, degrees } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { analyzeFile } from '../../src/media/analysis/analyze.js';
import { withBook } from '../../src/media/formats/open-book.js';
import { readPdfStructure } from '../../src/media/formats/pdf-structure.js';
import * as nativeModules from '../../src/media/native-modules.js';
import { renderPage } from '../../src/media/rendering/render-page.js';
import { pdfBytes } from './fixtures.js';

// Counts pdf.js loads: the structure reader exists so that a scan never needs it.
vi.mock('../../src/media/native-modules.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/media/native-modules.js')>();
  return { ...actual, loadPdfjs: vi.fn(actual.loadPdfjs) };
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'colophon-pdf-structure-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const INFO_KEYS = ['Title', 'Author', 'Subject', 'Keywords', 'Creator', 'Producer', 'CreationDate'] as const;

/** What pdf.js reads of a PDF: page sizes at scale 1 (its viewport) and the information dictionary's text. */
async function viaPdfjs(bytes: Uint8Array): Promise<{ pages: { width: number; height: number }[]; info: Record<string, string> }> {
  const { getDocument } = await vi.mocked(nativeModules.loadPdfjs).getMockImplementation()!();
  const doc = await getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise;
  try {
    const pages = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const { width, height } = (await doc.getPage(n)).getViewport({ scale: 1 });
      pages.push({ width, height });
    }
    const raw = (await doc.getMetadata()).info as Record<string, unknown>;
    const info: Record<string, string> = {};
    for (const key of INFO_KEYS) if (typeof raw[key] === 'string') info[key] = raw[key];
    return { pages, info };
  } finally {
    await doc.destroy();
  }
}

/** The structure reader's answer, restricted to what pdf.js is compared on. */
function viaStructure(bytes: Uint8Array) {
  const structure = readPdfStructure(bytes, 50_000);
  if (!structure) return null;
  const info: Record<string, string> = {};
  for (const key of INFO_KEYS) if (structure.info[key] !== undefined) info[key] = structure.info[key];
  return { pages: structure.pages, info };
}

/** A PDF from numbered object bodies written in the given order, with a classic cross-reference table. */
function buildPdf(objects: Record<number, string | Buffer>, trailer: string, order = Object.keys(objects).map(Number)): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let length = parts[0]!.length;
  const offsets = new Map<number, number>();
  for (const num of order) {
    offsets.set(num, length);
    const part = Buffer.concat([
      Buffer.from(`${num} 0 obj\n`, 'latin1'),
      typeof objects[num] === 'string' ? Buffer.from(objects[num], 'latin1') : objects[num]!,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(part);
    length += part.length;
  }
  const size = Math.max(...offsets.keys()) + 1;
  let xref = `xref\n0 ${size}\n0000000000 65535 f \n`;
  for (let num = 1; num < size; num++) {
    const at = offsets.get(num);
    xref += at === undefined ? '0000000000 65535 f \n' : `${String(at).padStart(10, '0')} 00000 n \n`;
  }
  xref += `trailer\n<< /Size ${size} ${trailer} >>\nstartxref\n${length}\n%%EOF\n`;
  return Buffer.concat([...parts, Buffer.from(xref, 'latin1')]);
}

/** Objects 1–4 (catalog, pages, page, `fourth`) packed uncompressed in object stream 5, found by an xref stream. */
function objectStreamPdf(fourth: string): Buffer {
  const bodies = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 420 595] /Resources << /Font << /F1 4 0 R >> >> >>',
    fourth,
  ];
  let header = '';
  let objects = '';
  bodies.forEach((body, i) => {
    header += `${i + 1} ${objects.length} `;
    objects += `${body}\n`;
  });
  let out = '%PDF-1.5\n';
  const streamAt = out.length;
  const content = header + objects;
  out += `5 0 obj\n<< /Type /ObjStm /N 4 /First ${header.length} /Length ${content.length} >>\nstream\n${content}\nendstream\nendobj\n`;
  const xrefAt = out.length;
  const rows = [
    [0, 0, 0, 255],
    ...bodies.map((_, i) => [2, 0, 5, i]),
    [1, streamAt >> 8, streamAt & 0xff, 0],
    [1, xrefAt >> 8, xrefAt & 0xff, 0],
  ];
  const data = Buffer.from(rows.flat());
  return Buffer.concat([
    Buffer.from(out + `6 0 obj\n<< /Type /XRef /Size 7 /W [1 2 1] /Root 1 0 R /Length ${data.length} >>\nstream\n`, 'latin1'),
    data,
    Buffer.from(`\nendstream\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`, 'latin1'),
  ]);
}

/** A document of pdf-lib's making: pages of several sizes, a rotated and a cropped one, Unicode properties. */
async function pdfLibDocument(useObjectStreams: boolean): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage([600, 800]);
  doc.addPage([1200, 800]).setRotation(degrees(90));
  doc.addPage([500, 700]).setCropBox(50, 60, 300, 400);
  doc.addPage([400, 400]).setRotation(degrees(-90));
  const unit = doc.addPage([100, 150]);
  unit.node.set(PDFName.of('UserUnit'), PDFNumber.of(3));
  doc.setTitle('Les Misérables — 第1巻');
  doc.setAuthor('Victor Hugo; Émile Zola');
  doc.setSubject('A (very) long novel\\ with escapes');
  doc.setKeywords(['classic', 'France']);
  doc.setCreator('Colophon tests');
  doc.setProducer('pdf-lib');
  doc.setCreationDate(new Date('2020-05-17T10:20:30Z'));
  return doc.save({ useObjectStreams });
}

describe('PDF structure without pdf.js: the same answer pdf.js gives', () => {
  it('reads a plain PDF with a cross-reference table', async () => {
    const bytes = pdfBytes({ pages: 3, pageSize: { width: 500, height: 700 }, info: { Title: 'On (Reading)', Author: 'A. Writer' } });
    const structure = viaStructure(bytes);
    expect(structure).not.toBeNull();
    expect(structure).toEqual(await viaPdfjs(bytes));
    expect(structure!.pages).toEqual([
      { width: 500, height: 700 },
      { width: 500, height: 700 },
      { width: 500, height: 700 },
    ]);
  });

  it.each([
    ['object streams and a cross-reference stream', true],
    ['a cross-reference table', false],
  ])('reads what pdf-lib writes with %s: rotation, crop box, UserUnit, UTF-16 properties', async (_, objectStreams) => {
    const bytes = await pdfLibDocument(objectStreams);
    const structure = viaStructure(bytes);
    expect(structure).not.toBeNull();
    expect(structure).toEqual(await viaPdfjs(bytes));
    expect(structure!.pages.map((p) => [Math.round(p.width), Math.round(p.height)])).toEqual([
      [600, 800],
      [800, 1200],
      [300, 400],
      [400, 400],
      [300, 450],
    ]);
    expect(structure!.info.Title).toBe('Les Misérables — 第1巻');
  });

  it('inherits boxes and rotation down a nested page tree, nearest value first', async () => {
    const bytes = buildPdf(
      {
        1: '<< /Type /Catalog /Pages 2 0 R >>',
        2: '<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 3 /MediaBox [0 0 612 792] >>',
        3: '<< /Type /Pages /Parent 2 0 R /Kids [4 0 R 5 0 R] /Count 2 /Rotate 270 /CropBox 7 0 R >>',
        4: '<< /Type /Page /Parent 3 0 R >>',
        5: '<< /Type /Page /Parent 3 0 R /MediaBox [100 100 -200 500] /Rotate 0 >>',
        6: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 0 0] /Rotate 45 >>',
        7: '[10 20 410 620]',
        8: '<< /Title <FEFF004800E9006C006C006F> /Author (\\101uthor\\\nName) /Keywords (\x80 bullet \xa0 euro) >>',
      },
      '/Root 1 0 R /Info 8 0 R',
    );
    const structure = viaStructure(bytes);
    expect(structure).not.toBeNull();
    expect(structure).toEqual(await viaPdfjs(bytes));
    expect(structure!.pages).toEqual([
      { width: 600, height: 400 },
      // [-200 100 100 500] within the inherited crop box [10 20 410 620]: 90 × 400.
      { width: 90, height: 400 },
      { width: 612, height: 792 },
    ]);
    expect(structure!.info).toMatchObject({ Title: 'Héllo', Author: 'AuthorName', Keywords: '• bullet € euro' });
  });

  it('follows an incremental update: the newer section wins over the older one', async () => {
    const original = buildPdf(
      {
        1: '<< /Type /Catalog /Pages 2 0 R >>',
        2: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        3: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 400] >>',
        4: '<< /Title (First) >>',
      },
      '/Root 1 0 R /Info 4 0 R',
    );
    const prev = original.toString('latin1').lastIndexOf('\nxref') + 1;
    const page = `3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 350 500] >>\nendobj\n`;
    const info = `4 0 obj\n<< /Title (Second) >>\nendobj\n`;
    const at3 = original.length;
    const at4 = at3 + page.length;
    const xrefAt = at4 + info.length;
    const update =
      page +
      info +
      `xref\n3 2\n${String(at3).padStart(10, '0')} 00000 n \n${String(at4).padStart(10, '0')} 00000 n \n` +
      `trailer\n<< /Size 5 /Root 1 0 R /Info 4 0 R /Prev ${prev} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
    const bytes = Buffer.concat([original, Buffer.from(update, 'latin1')]);
    const structure = viaStructure(bytes);
    expect(structure).toEqual(await viaPdfjs(bytes));
    expect(structure).toEqual({ pages: [{ width: 350, height: 500 }], info: { Title: 'Second' } });
  });

  it('reads a cross-reference stream with PNG predictors', async () => {
    const objects = [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 420 595] >>',
    ];
    let body = '%PDF-1.5\n';
    const offsets = objects.map((text, i) => {
      const at = body.length;
      body += `${i + 1} 0 obj\n${text}\nendobj\n`;
      return at;
    });
    const xrefAt = body.length;
    // Rows of type (1 byte), offset (2), generation (1), each PNG "Up"-predicted (filter byte 2).
    const rows = [[0, 0, 0, 255], ...offsets.map((o) => [1, o >> 8, o & 0xff, 0]), [1, xrefAt >> 8, xrefAt & 0xff, 0]];
    const predicted: number[] = [];
    rows.forEach((row, r) => predicted.push(2, ...row.map((v, i) => (v - (r > 0 ? rows[r - 1]![i]! : 0)) & 0xff)));
    const data = deflateSync(Buffer.from(predicted));
    const stream = Buffer.concat([
      Buffer.from(
        `4 0 obj\n<< /Type /XRef /Size 5 /W [1 2 1] /Root 1 0 R /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 4 >> /Length ${data.length} >>\nstream\n`,
        'latin1',
      ),
      data,
      Buffer.from(`\nendstream\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`, 'latin1'),
    ]);
    const bytes = Buffer.concat([Buffer.from(body, 'latin1'), stream]);
    const structure = viaStructure(bytes);
    expect(structure).toEqual({ pages: [{ width: 420, height: 595 }], info: {} });
    expect(structure).toEqual(await viaPdfjs(bytes));
  });

  const ordinary = {
    1: '<< /Type /Catalog /Pages 2 0 R >>',
    2: '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>',
    3: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 400] >>',
    4: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 400] >>',
  };

  it.each([
    ['not a PDF', () => Buffer.from('PK\x03\x04 not a pdf at all, really not')],
    ['encrypted', () => buildPdf(ordinary, '/Root 1 0 R /Encrypt << /Filter /Standard /V 1 /R 2 >>')],
    [
      'a /Count that disagrees with the tree',
      () => buildPdf({ ...ordinary, 2: '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 5 >>' }, '/Root 1 0 R'),
    ],
    ['a page tree that loops', () => buildPdf({ ...ordinary, 2: '<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>' }, '/Root 1 0 R')],
    ['a /Parent that disagrees', () => buildPdf({ ...ordinary, 4: '<< /Type /Page /Parent 1 0 R >>' }, '/Root 1 0 R')],
    [
      'cross-reference offsets shifted by bytes inserted before the objects',
      () => {
        const good = buildPdf(ordinary, '/Root 1 0 R');
        const at = good.indexOf('1 0 obj');
        return Buffer.concat([good.subarray(0, at), Buffer.from('% a comment someone inserted\n'), good.subarray(at)]);
      },
    ],
    ['no startxref', () => buildPdf(ordinary, '/Root 1 0 R').subarray(0, -30)],
    [
      'a linearisation dictionary whose page count disagrees',
      () => buildPdf({ ...ordinary, 5: '<< /Linearized 1 /L 999999 /N 7 /H [1 2] /O 3 /E 1 /T 1 >>' }, '/Root 1 0 R', [5, 1, 2, 3, 4]),
    ],
  ])('leaves %s to pdf.js', (_, make) => {
    expect(readPdfStructure(make(), 50_000)).toBeNull();
  });

  it('reads objects packed in an object stream, and leaves a stream with a damaged object to pdf.js, as pdf.js refuses it', async () => {
    const sound = objectStreamPdf('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
    expect(viaStructure(sound)).toEqual({ pages: [{ width: 420, height: 595 }], info: {} });
    expect(viaStructure(sound)).toEqual(await viaPdfjs(sound));
    // The font is never needed for the page list, but pdf.js parses every object of a stream it opens.
    const damaged = objectStreamPdf('<< /Type /Font /Subtype /Type1 /BaseFont ) >>');
    expect(readPdfStructure(damaged, 50_000)).toBeNull();
    await expect(viaPdfjs(damaged)).rejects.toThrow();
  });

  it('leaves a cross-reference stream with an entry of an unknown type to pdf.js, which refuses it', async () => {
    const bytes = objectStreamPdf('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
    // Object 4's row (type 2, in stream 5) becomes type 3: the fifth 4-byte row of the stream's data.
    bytes[bytes.indexOf('stream\n', bytes.indexOf('6 0 obj')) + 'stream\n'.length + 4 * 4] = 3;
    expect(readPdfStructure(bytes, 50_000)).toBeNull();
    await expect(viaPdfjs(bytes)).rejects.toThrow();
  });

  it('leaves an object followed by a stray delimiter instead of endobj to pdf.js, which refuses it', async () => {
    const bytes = buildPdf(ordinary, '/Root 1 0 R');
    const at = bytes.indexOf('>>\nendobj', bytes.indexOf('2 0 obj')) + 3;
    bytes[at] = 0x29; // ")ndobj"
    expect(readPdfStructure(bytes, 50_000)).toBeNull();
    await expect(viaPdfjs(bytes)).rejects.toThrow();
  });

  it('leaves at once a file whose cross-reference offset points into a long run of data', () => {
    const good = buildPdf(ordinary, '/Root 1 0 R');
    const junk = Buffer.alloc(8 * 1024 * 1024, 'A');
    const bytes = Buffer.concat([good.subarray(0, 15), junk, Buffer.from(`\nstartxref\n15\n%%EOF\n`)]);
    const started = process.cpuUsage();
    expect(readPdfStructure(bytes, 50_000)).toBeNull();
    const used = process.cpuUsage(started);
    expect((used.user + used.system) / 1000).toBeLessThan(200);
  });

  it('reads megabytes of document information in one pass (literal and hex strings), and refuses a name of a megabyte', async () => {
    const long = 'x'.repeat(4 * 1024 * 1024);
    const info = `<< /Title (${long}\\(a\\)) /Subject <${Buffer.from(long.slice(0, 1024 * 1024)).toString('hex')}> >>`;
    const bytes = buildPdf({ ...ordinary, 5: info }, '/Root 1 0 R /Info 5 0 R');
    const started = process.cpuUsage();
    const structure = readPdfStructure(bytes, 50_000);
    const used = process.cpuUsage(started);
    expect(structure?.info.Title).toBe(`${long}(a)`);
    expect(structure?.info.Subject).toHaveLength(1024 * 1024);
    expect((used.user + used.system) / 1000).toBeLessThan(500);
    const named = buildPdf({ ...ordinary, 5: `<< /${'N'.repeat(1024 * 1024)} 1 >>` }, '/Root 1 0 R /Info 5 0 R');
    expect(readPdfStructure(named, 50_000)).toBeNull();
  });

  it('stops at the page limit instead of walking on', () => {
    expect(readPdfStructure(buildPdf(ordinary, '/Root 1 0 R'), 1)).toBeNull();
    expect(readPdfStructure(buildPdf(ordinary, '/Root 1 0 R'), 2)?.pages).toHaveLength(2);
  });
});

describe('analysing a PDF', () => {
  it('does not load pdf.js for an ordinary PDF; drawing a page does', async () => {
    const path = join(dir, 'Essays 01.pdf');
    await writeFile(path, await pdfLibDocument(true));
    const load = vi.mocked(nativeModules.loadPdfjs);
    load.mockClear();
    const analysis = await analyzeFile(path);
    expect(load).not.toHaveBeenCalled();
    expect(analysis.pages).toHaveLength(5);
    // Fitted to a long edge of 1600 px, as pdf.js's page boxes were.
    expect(analysis.pages[0]).toMatchObject({ number: 1, file_name: 'page-1', width: 1200, height: 1600 });
    expect(analysis.pages[1]).toMatchObject({ width: 1067, height: 1600 });
    expect(analysis.metadata).toMatchObject({ title: 'Les Misérables — 第1巻' });

    const page = await withBook(path, 'pdf', {}, (reader) => renderPage(reader, 2, { width: 200 }));
    expect(page.mediaType).toBe('image/jpeg');
    expect(load).toHaveBeenCalled();
  });

  it('gives the same analysis through pdf.js when the structure reader steps aside', async () => {
    const good = pdfBytes({ pages: 2, pageSize: { width: 500, height: 700 }, info: { Title: 'Shifted' } });
    const at = good.indexOf('1 0 obj');
    const shifted = Buffer.concat([good.subarray(0, at), Buffer.from('% inserted\n'), good.subarray(at)]);
    const goodPath = join(dir, 'good.pdf');
    const shiftedPath = join(dir, 'shifted.pdf');
    await writeFile(goodPath, good);
    await writeFile(shiftedPath, shifted);
    const load = vi.mocked(nativeModules.loadPdfjs);
    load.mockClear();
    const direct = await analyzeFile(goodPath);
    expect(load).not.toHaveBeenCalled();
    const repaired = await analyzeFile(shiftedPath);
    expect(load).toHaveBeenCalled();
    expect(repaired.pages).toEqual(direct.pages);
    expect(repaired.metadata.title).toBe('Shifted');
  });
});
