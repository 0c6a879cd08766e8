import { readFile } from 'node:fs/promises';
import type { FileHeader } from 'node-unrar-js';
import { MediaError, asMediaError } from '../errors.js';

/**
 * node-unrar-js runs one WASM instance per thread and routes its file callbacks to the extractor created
 * last. Two extractors used at once would read each other's data, so every use goes through this queue:
 * create an extractor, drain it, let the next one in.
 */
let queue: Promise<unknown> = Promise.resolve();

type UnrarLibrary = typeof import('node-unrar-js');
let library: Promise<UnrarLibrary> | undefined;

/**
 * Loads node-unrar-js on first use. Its Emscripten glue, when the WASM starts, adds process-wide
 * `uncaughtException` and `unhandledRejection` listeners that rethrow; they would override whatever the
 * server decides about such errors, so they are taken off again right after start-up.
 */
function unrarLibrary(): Promise<UnrarLibrary> {
  library ??= (async () => {
    const before = {
      exception: new Set(process.listeners('uncaughtException')),
      rejection: new Set(process.listeners('unhandledRejection')),
    };
    const loaded = await import('node-unrar-js');
    await loaded.createExtractorFromData({ data: new ArrayBuffer(0) });
    for (const listener of process.listeners('uncaughtException')) {
      if (!before.exception.has(listener)) process.removeListener('uncaughtException', listener);
    }
    for (const listener of process.listeners('unhandledRejection')) {
      if (!before.rejection.has(listener)) process.removeListener('unhandledRejection', listener);
    }
    return loaded;
  })();
  return library;
}

async function createExtractorFromData(options: { data: ArrayBuffer }) {
  return (await unrarLibrary()).createExtractorFromData(options);
}

function isUnrarError(err: unknown): err is { reason: string; message: string } {
  return err instanceof Error && err.name !== 'MediaError' && typeof (err as { reason?: unknown }).reason === 'string';
}

function exclusively<T>(work: () => Promise<T>): Promise<T> {
  const run = queue.then(work, work);
  queue = run.catch(() => undefined);
  return run;
}

export function unrarError(err: unknown, context: string): MediaError {
  if (isUnrarError(err)) {
    switch (err.reason) {
      case 'ERAR_MISSING_PASSWORD':
      case 'ERAR_BAD_PASSWORD':
        return new MediaError('encrypted', `${context}: the archive is password-protected`, { cause: err });
      case 'ERAR_NO_MEMORY':
        return new MediaError('too_large', `${context}: out of memory while extracting`, { cause: err });
      case 'ERAR_UNKNOWN_FORMAT':
        return new MediaError('unsupported', `${context}: unknown RAR format`, { cause: err });
      default:
        return new MediaError('corrupt', `${context}: ${err.message} (${err.reason})`, { cause: err });
    }
  }
  return asMediaError(err, 'corrupt', context);
}

/** A RAR file held in memory (the WASM build reads from memory, not from a file descriptor), listed once. */
export class RarFile {
  private constructor(
    private readonly data: ArrayBuffer,
    readonly label: string,
    readonly headers: readonly FileHeader[],
    private readonly solid: boolean,
  ) {}

  static async load(path: string, maxBytes: number): Promise<RarFile> {
    let buffer: Buffer;
    try {
      buffer = await readFile(path);
    } catch (err) {
      throw asMediaError(err, 'corrupt', path);
    }
    if (buffer.length > maxBytes) throw new MediaError('too_large', `${path}: RAR archives over ${maxBytes} bytes are not read`);
    const data = buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer;
    return exclusively(async () => {
      try {
        const list = (await createExtractorFromData({ data })).getFileList();
        if (list.arcHeader.flags.headerEncrypted) throw new MediaError('encrypted', `${path}: the archive headers are encrypted`);
        return new RarFile(data, path, [...list.fileHeaders], list.arcHeader.flags.solid);
      } catch (err) {
        throw err instanceof MediaError ? err : unrarError(err, path);
      }
    });
  }

  /**
   * Extracts the named entries in archive order and hands each to `visit`; `visit` may await (the queue stays
   * held meanwhile). The WASM extractor keeps every file it inflated until it is dropped, so a plain archive gets
   * one extractor per entry (skipping is a seek there) and only a solid one, where skipping means inflating,
   * is drained in a single pass.
   */
  async each(names: readonly string[], visit: (name: string, data: Buffer) => Promise<void> | void): Promise<void> {
    const batches = this.solid ? [names] : names.map((name) => [name]);
    for (const batch of batches) {
      await exclusively(async () => {
        try {
          // The list form stops as soon as every wanted entry came out.
          const { files } = (await createExtractorFromData({ data: this.data })).extract({ files: [...batch] });
          for (const file of files) {
            if (file.fileHeader.flags.directory || !file.extraction) continue;
            const bytes = file.extraction;
            await visit(file.fileHeader.name, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
          }
        } catch (err) {
          throw err instanceof MediaError ? err : unrarError(err, this.label);
        }
      });
    }
  }

  async read(name: string): Promise<Buffer> {
    let found: Buffer | undefined;
    await this.each([name], (_name, data) => {
      found = data;
    });
    if (!found) throw new MediaError('corrupt', `${this.label}: entry "${name}" could not be extracted`);
    return found;
  }
}
