import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import tar from 'tar-stream';
import { z } from 'zod';

/** What a backup file says of itself: read first of all, checked against every entry before anything is restored. */
export const Manifest = z.object({
  format: z.literal('colophon-backup'),
  format_version: z.literal(1),
  product_version: z.string(),
  schema_version: z.string().nullable(),
  engine: z.enum(['sqlite', 'postgres']),
  created_at: z.string(),
  tables: z.record(z.string(), z.object({ rows: z.number().int().min(0), sha256: z.string(), order: z.number().int() })),
  files: z.record(z.string(), z.object({ size: z.number().int().min(0), sha256: z.string() })),
});
export type Manifest = z.infer<typeof Manifest>;

export class BackupFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupFileError';
  }
}

/** A file's SHA-256 and size. */
export async function digest(file: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return { sha256: hash.digest('hex'), size: (await stat(file)).size };
}

/** Writes `entries` (name in the archive → file on disk) and the manifest into a .tar.gz. */
export async function writeArchive(out: string, entries: ReadonlyArray<{ name: string; file: string }>, manifest: Manifest): Promise<void> {
  const pack = tar.pack();
  const written = pipeline(pack, createGzip({ level: 6 }), createWriteStream(out, { flags: 'wx', mode: 0o600 }));
  // The file failing (a full disk) ends the writing at once: each entry waits on it too, never on a callback that will not come.
  const entry = (header: { name: string; size: number }, fill: (sink: NodeJS.WritableStream) => void) =>
    Promise.race([
      written,
      new Promise<void>((resolve, reject) => {
        const sink = pack.entry(header, (err) => (err ? reject(err) : resolve()));
        // Its error is the pack's, which `written` carries.
        sink.on('error', () => undefined);
        fill(sink);
      }),
    ]);
  const text = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
  // The manifest first: a reader knows what to expect before reading the rest.
  await entry({ name: 'manifest.json', size: text.length }, (sink) => sink.end(text));
  for (const item of entries) {
    const { size } = await stat(item.file);
    await entry({ name: item.name, size }, (sink) => {
      const source = createReadStream(item.file);
      source.on('error', (err) => pack.destroy(err));
      source.pipe(sink);
    });
  }
  pack.finalize();
  await written;
}

/**
 * Unpacks a backup into `dir` and checks it whole: the manifest's shape, every table and file it lists present with
 * its checksum, nothing else. A truncated, corrupted or foreign file is refused here, before anything is changed.
 */
export async function readArchive(file: string, dir: string): Promise<Manifest> {
  const extract = tar.extract();
  const seen = new Map<string, { sha256: string; size: number }>();
  let manifest: Manifest | null = null;
  extract.on('entry', (header, stream, next) => {
    const name = header.name;
    if (header.type !== 'file' || name.includes('..') || path.isAbsolute(name)) {
      stream.resume();
      extract.destroy(new BackupFileError(`it holds an entry that is not a backup's: ${name}`));
      return;
    }
    if (name === 'manifest.json') {
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => chunks.push(c as Buffer));
      stream.on('end', () => {
        try {
          manifest = Manifest.parse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          next();
        } catch {
          extract.destroy(new BackupFileError('its manifest is not a Colophon backup manifest'));
        }
      });
      return;
    }
    const target = path.join(dir, name);
    const hash = createHash('sha256');
    let size = 0;
    void mkdir(path.dirname(target), { recursive: true })
      .then(() =>
        pipeline(
          stream,
          async function* (source: AsyncIterable<unknown>) {
            for await (const chunk of source) {
              const bytes = chunk as Buffer;
              hash.update(bytes);
              size += bytes.length;
              yield bytes;
            }
          },
          createWriteStream(target),
        ),
      )
      .then(() => {
        seen.set(name, { sha256: hash.digest('hex'), size });
        next();
      })
      .catch((err: unknown) => extract.destroy(err as Error));
  });
  try {
    await pipeline(createReadStream(file), createGunzip(), extract);
  } catch (err) {
    if (err instanceof BackupFileError) throw err;
    throw new BackupFileError(`it cannot be read whole (${(err as Error).message}): truncated or not a .tar.gz`);
  }
  const found = manifest as Manifest | null;
  if (!found) throw new BackupFileError('it has no manifest');
  const expected = new Map<string, string>([
    ...Object.entries(found.tables).map(([t, v]): [string, string] => [`tables/${t}.ndjson`, v.sha256]),
    ...Object.entries(found.files).map(([f, v]): [string, string] => [`files/${f}`, v.sha256]),
  ]);
  for (const [name, sha] of expected) {
    const got = seen.get(name);
    if (!got) throw new BackupFileError(`${name} is missing from it`);
    if (got.sha256 !== sha) throw new BackupFileError(`${name} does not match its checksum: the file is damaged`);
  }
  for (const name of seen.keys()) if (!expected.has(name)) throw new BackupFileError(`it holds ${name}, which its manifest does not list`);
  return found;
}
