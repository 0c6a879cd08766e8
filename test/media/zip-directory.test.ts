import { describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { directoryEntryOf, readCentralDirectory, type DirectoryEntry } from '../../src/media/archives/zip-directory.js';

interface Item {
  name: string;
  data: string;
  compress?: boolean;
  forceZip64Format?: boolean;
  dir?: boolean;
}

function build(items: readonly Item[], options: { comment?: string; forceZip64Format?: boolean } = {}): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const item of items) {
    if (item.dir) zip.addEmptyDirectory(item.name);
    else
      zip.addBuffer(Buffer.from(item.data), item.name, {
        compress: item.compress ?? false,
        forceZip64Format: item.forceZip64Format ?? false,
      });
  }
  zip.end({ forceZip64Format: options.forceZip64Format ?? false, comment: options.comment ?? '' });
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

/** The records yauzl reads from the same bytes, in the same shape. */
async function viaYauzl(data: Buffer): Promise<DirectoryEntry[]> {
  const reader = new (class extends yauzl.RandomAccessReader {
    override _readStreamForRange(): never {
      throw new Error('not used');
    }
    override read(
      buffer: Buffer,
      offset: number,
      length: number,
      position: number,
      callback: (err: Error | null, bytesRead?: number) => void,
    ): void {
      const n = data.copy(buffer, offset, position, position + length);
      queueMicrotask(() => callback(null, n));
    }
  })();
  const zip = await yauzl.fromRandomAccessReaderPromise(reader, data.length, { lazyEntries: true, decodeStrings: false });
  const out: DirectoryEntry[] = [];
  for await (const entry of zip.eachEntry()) out.push(directoryEntryOf(entry));
  zip.close();
  return out;
}

describe('readCentralDirectory (in-memory zips read without yauzl)', () => {
  const items: Item[] = [
    { name: 'Astérix/', data: '', dir: true },
    { name: 'Astérix/page 01.jpg', data: 'x'.repeat(300) },
    { name: 'ComicInfo.xml', data: '<ComicInfo><Title>Été</Title></ComicInfo>'.repeat(20), compress: true },
    { name: '日本語/002.png', data: 'png bytes' },
    { name: 'empty.txt', data: '' },
  ];

  it('reads the same records as yauzl: stored and deflated entries, folders, UTF-8 names, an archive comment', async () => {
    for (const comment of [undefined, 'made by a test', 'x'.repeat(1000)]) {
      const data = await build(items, { comment });
      const direct = readCentralDirectory(data);
      expect(direct).not.toBeNull();
      expect(direct).toEqual(await viaYauzl(data));
      expect(direct!.map((e) => e.name)).toEqual(items.map((i) => i.name));
    }
  });

  it('leaves to yauzl what is not an ordinary archive', async () => {
    const data = await build(items);
    // ZIP64 end records, and ZIP64 fields in one entry.
    expect(readCentralDirectory(await build(items, { forceZip64Format: true }))).toBeNull();
    expect(readCentralDirectory(await build([{ name: 'a.jpg', data: 'a', forceZip64Format: true }]))).toBeNull();
    // Bytes after the end record (yauzl refuses the comment length), a truncated directory, no end record.
    expect(readCentralDirectory(Buffer.concat([data, Buffer.from('trailing')]))).toBeNull();
    expect(readCentralDirectory(data.subarray(0, data.length - 40))).toBeNull();
    expect(readCentralDirectory(Buffer.from('not a zip at all'))).toBeNull();
    // A stored entry whose sizes disagree (yauzl reports it), strong encryption (yauzl refuses it).
    const directoryAt = data.readUInt32LE(data.length - 22 + 16);
    const badSize = Buffer.from(data);
    badSize.writeUInt32LE(badSize.readUInt32LE(directoryAt + 24) + 1, directoryAt + 24);
    expect(readCentralDirectory(badSize)).toBeNull();
    const strong = Buffer.from(data);
    strong.writeUInt16LE(strong.readUInt16LE(directoryAt + 8) | 0x40, directoryAt + 8);
    expect(readCentralDirectory(strong)).toBeNull();
    // A directory record's signature damaged.
    const damaged = Buffer.from(data);
    damaged.writeUInt32LE(0, directoryAt);
    expect(readCentralDirectory(damaged)).toBeNull();
  });
  it('decodes names without the UTF-8 flag as yauzl does (CP437), backslashes and control bytes included', async () => {
    const names = ['page 01.jpg', 'back\\slash.jpg', 'ctl_.jpg', 'caf_.jpg'];
    const data = await build(names.map((name) => ({ name, data: 'x' })));
    // Clear the UTF-8 flag everywhere and put raw bytes in place of the underscores: 0x01 and CP437's é (0x82).
    for (let at = 0; at + 4 <= data.length; at++) {
      const signature = data.readUInt32LE(at);
      if (signature === 0x04034b50) data.writeUInt16LE(data.readUInt16LE(at + 6) & ~0x800, at + 6);
      if (signature === 0x02014b50) data.writeUInt16LE(data.readUInt16LE(at + 8) & ~0x800, at + 8);
    }
    for (const [from, to] of [
      ['ctl_', 0x01],
      ['caf_', 0x82],
    ] as const) {
      for (let at = data.indexOf(from); at >= 0; at = data.indexOf(from, at + 1)) data[at + 3] = to;
    }
    const direct = readCentralDirectory(data);
    expect(direct).toEqual(await viaYauzl(data));
    expect(direct!.map((e) => e.name)).toEqual(['page 01.jpg', 'back/slash.jpg', 'ctl☺.jpg', 'café.jpg']);
  });
});
