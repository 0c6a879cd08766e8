import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import type { Entry } from 'yauzl';
import { MediaError, asMediaError } from '../errors.js';

/** One entry of an archive replaced (or added) by `rewriteZip`. */
export interface EntryReplacement {
  /** Which entry to replace, from all the entry names (null: none, the new one is added last under `addAs`). */
  pick(names: readonly string[]): string | null;
  addAs: string;
  /** The new content from the old one (null when the archive had none); null leaves the entry out. */
  content(old: Buffer | null): Buffer | null;
  /** The old entry is refused past this size. */
  maxOldBytes: number;
}

const DEFLATED = 8;
const REGULAR_FILE = 0o100000;

async function readAll(stream: Readable, limit: number, label: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limit) {
      stream.destroy();
      throw new MediaError('too_large', `${label} is larger than ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/**
 * Writes a copy of the zip archive `source` to `target` (a new file: it must not exist) with one entry replaced:
 * every other entry keeps its name, order, content (byte for byte once inflated), compression method (stored stays
 * stored), time and mode; folder entries and comments are kept. The source is only read. yauzl reads (names checked:
 * an archive with a hostile name is refused), yazl writes; deflated entries are deflated again, since yazl takes
 * no compressed data, so their compressed bytes may differ.
 */
export async function rewriteZip(source: string, target: string, replacement: EntryReplacement, fileMode: number): Promise<void> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(source, { lazyEntries: true, autoClose: false });
  } catch (err) {
    throw asMediaError(err, 'corrupt', `${source}: not a readable zip archive`);
  }
  try {
    const entries: Entry[] = [];
    for await (const entry of zip.eachEntry()) {
      if (entry.isEncrypted()) throw new MediaError('encrypted', `${source}: entry "${entry.fileName}" is encrypted`);
      if (!entry.fileName.endsWith('/') && !entry.canDecodeFileData())
        throw new MediaError('unsupported', `${source}: entry "${entry.fileName}" uses compression method ${entry.compressionMethod}`);
      entries.push(entry);
    }
    const picked = replacement.pick(entries.map((e) => e.fileName));
    const old = picked === null ? undefined : entries.find((e) => e.fileName === picked);
    if (old && old.uncompressedSize > replacement.maxOldBytes)
      throw new MediaError('too_large', `${source}: "${old.fileName}" is larger than ${replacement.maxOldBytes} bytes`);
    const oldData = old ? await readAll(await zip.openReadStreamPromise(old), replacement.maxOldBytes, old.fileName) : null;
    const newData = replacement.content(oldData);

    // Loaded at first use (decision 027): the server rarely writes an archive.
    // yazl is CommonJS: its exports are `default` both from node_modules and from the bundle's chunk (dist/).
    const { default: yazl } = await import('yazl');
    const writer = new yazl.ZipFile();
    const output = writer.outputStream as Readable;
    const failed = (err: unknown) => output.destroy(err instanceof Error ? err : new Error(String(err)));
    writer.on('error', failed);
    for (const entry of entries) {
      const mode = entry.externalFileAttributes >>> 16;
      const common = { mtime: entry.getLastModDate(), ...((mode & 0o170000) === REGULAR_FILE ? { mode } : {}) };
      if (entry === old) {
        if (newData === null) continue;
        writer.addBuffer(newData, entry.fileName, { ...common, mtime: new Date(), compress: entry.compressionMethod === DEFLATED });
      } else if (entry.fileName.endsWith('/')) {
        writer.addEmptyDirectory(entry.fileName, { mtime: common.mtime });
      } else {
        writer.addReadStreamLazy(
          entry.fileName,
          {
            ...common,
            compress: entry.compressionMethod === DEFLATED,
            size: entry.uncompressedSize,
            ...(entry.fileComment ? { fileComment: entry.fileComment } : {}),
          },
          (callback) => {
            zip.openReadStream(entry, (err, stream) => {
              // yazl pipes the stream and listens to none of its errors: a damaged entry must fail the copy.
              stream?.on('error', failed);
              callback(err, stream);
            });
          },
        );
      }
    }
    if (!old && newData !== null) writer.addBuffer(newData, replacement.addAs, { mtime: new Date() });
    writer.end({ forceZip64Format: false, comment: zip.comment });
    await pipeline(output, createWriteStream(target, { flags: 'wx', mode: fileMode }));
  } catch (err) {
    throw asMediaError(err, 'corrupt', `${source}: could not be copied`);
  } finally {
    zip.close();
  }
}
