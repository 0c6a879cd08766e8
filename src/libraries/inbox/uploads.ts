import { mkdir, stat, statfs } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { FileStore } from '@tus/file-store';
import { Server } from '@tus/server';
import { Metadata } from '@tus/utils';
import { AppError, badRequest, conflict, notFound } from '../../http/errors.js';
import { fill, sentence } from '../../i18n/messages.js';
import type { Caller } from '../../identity/index.js';
import { isBookFileName } from '../../media/index.js';
import { freeName, moveNoClobber } from './file-move.js';
import type { InboxService } from './service.js';

/** Free space kept beyond an upload's size, on the uploads volume and the inbox folder's. */
const SPARE_BYTES = 64 * 1024 * 1024;
/** An upload not finished in this long is removed. */
const EXPIRES_MS = 24 * 60 * 60 * 1000;

export interface UploadDeps {
  inbox: InboxService;
  directory: string;
  /** The setting `inbox_upload_max_mb`, in bytes. */
  maxBytes: () => number;
  log: { warn(obj: object, msg: string): void };
}

/** What the web app's upload and every tus client sends as `Upload-Metadata`. */
interface UploadMetadata {
  filename: string;
  folder_id: string;
  user_id: string;
}

async function freeBytes(folder: string): Promise<number> {
  const info = await statfs(folder);
  return Number(info.bavail) * Number(info.bsize);
}

/**
 * Uploads into an inbox folder over the tus resumable upload protocol (1.0, with creation), by @tus/server: a
 * client creates an upload (`POST`), sends the bytes (`PATCH` with `Upload-Offset`), and after a lost connection asks
 * how far it got (`HEAD`) and goes on from there. Checked here before tus sees the request: the folder is one the
 * caller may file into, the size is within the setting and the disk has room; an upload is its creator's alone.
 * Finished, the file is moved into the inbox folder and analysed at once (it is complete: no quiet period).
 */
export class InboxUploads {
  private server: Server | undefined;
  private fileStore: FileStore | undefined;
  private readonly checked = new WeakMap<IncomingMessage, Record<string, string>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: UploadDeps) {}

  /** Made when first needed: the file store makes its folder, which `colophon openapi` (no data folder) must not. */
  private get store(): FileStore {
    return (this.fileStore ??= new FileStore({ directory: this.deps.directory, expirationPeriodInMilliseconds: EXPIRES_MS }));
  }

  get tus(): Server {
    return (this.server ??= new Server({
      path: '/api/v1/inbox/uploads',
      datastore: this.store,
      relativeLocation: true,
      maxSize: () => this.deps.maxBytes(),
      // The metadata checked before tus saw the request (with its creator), in place of what the client sent.
      onUploadCreate: async (req) => {
        const node = (req as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req;
        const checked = node ? this.checked.get(node) : undefined;
        if (!checked) throw { status_code: 400, body: 'Upload not checked' };
        return { metadata: { ...checked } };
      },
      onUploadFinish: async (_req, upload) => {
        const item = await this.finished(upload.id, upload.metadata ?? {});
        const headers: Record<string, string> = item ? { 'Inbox-Item-Id': item } : {};
        return { headers };
      },
    }));
  }

  /** The uploads folder made; uploads left unfinished for a day removed now and every hour. */
  async start(): Promise<void> {
    await mkdir(this.deps.directory, { recursive: true });
    await this.cleanUp();
    this.timer = setInterval(() => void this.cleanUp(), 60 * 60 * 1000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private cleanUp(): Promise<number> {
    return this.tus.cleanUpExpiredUploads().catch(() => 0);
  }

  /** Before an upload is created: the folder, the name, the size, the space; what passed is kept for tus's creation. */
  async checkCreation(caller: Caller, request: IncomingMessage): Promise<void> {
    const headers = request.headers;
    let raw: Record<string, string | null>;
    try {
      raw = Metadata.parse(typeof headers['upload-metadata'] === 'string' ? headers['upload-metadata'] : undefined);
    } catch {
      throw badRequest('Upload-Metadata is not written as tus writes it (key base64, key base64…)', { field: 'Upload-Metadata' });
    }
    const folderId = raw.folder_id ?? '';
    const filename = path.basename((raw.filename ?? '').replace(/\\/g, '/')).trim();
    if (!filename)
      throw badRequest('Upload-Metadata must name the file (filename) and the inbox folder (folder_id)', { field: 'filename' });
    if (filename.startsWith('.') || filename.length > 255)
      throw badRequest('The file name cannot start with a dot or be longer than 255 characters', { field: 'filename' });
    if (!isBookFileName(filename))
      throw badRequest(
        fill(sentence('{0} is not a format Colophon reads (CBZ, CBR, CB7, EPUB, PDF…)'), [path.extname(filename) || filename]),
        { field: 'filename' },
      );
    const folder = await this.deps.inbox.folder(folderId, caller).catch(() => null);
    if (!folder) throw notFound('Inbox folder');
    const lengthHeader = headers['upload-length'];
    const length = typeof lengthHeader === 'string' && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : NaN;
    if (!Number.isSafeInteger(length))
      throw badRequest('Upload-Length must give the size of the file in bytes', { field: 'Upload-Length' });
    const max = this.deps.maxBytes();
    if (length > max)
      throw new AppError(
        413,
        'PayloadTooLarge',
        fill(sentence('The file is larger than uploads may be ({0} MB; setting inbox_upload_max_mb)'), [Math.round(max / 1048576)]),
        {
          max_bytes: max,
        },
      );
    await mkdir(this.deps.directory, { recursive: true });
    const [here, there] = await Promise.all([
      freeBytes(this.deps.directory),
      freeBytes(folder.path).catch(() => {
        throw conflict('The inbox folder is missing on the server: nothing can be uploaded into it until it is back', {
          folder_id: folder.id,
        });
      }),
    ]);
    const free = Math.min(here, there);
    if (free < length + SPARE_BYTES)
      throw new AppError(507, 'InsufficientStorage', 'The server has not enough free space for this file', {
        free_bytes: free,
        needed_bytes: length + SPARE_BYTES,
      });
    const metadata: UploadMetadata = { filename, folder_id: folder.id, user_id: caller.user.id };
    this.checked.set(request, { ...metadata });
  }

  /** An upload the caller created (anyone else's, or one that does not exist, is not found). */
  async checkOwner(caller: Caller, id: string): Promise<void> {
    const upload = await this.store.getUpload(id).catch(() => null);
    if (!upload || upload.metadata?.user_id !== caller.user.id) throw notFound('Upload');
  }

  /** Moved into its inbox folder and analysed; returns the item's id. */
  private async finished(id: string, metadata: Record<string, string | null>): Promise<string | undefined> {
    const folder = await this.deps.inbox.folder(metadata.folder_id ?? '').catch(() => null);
    const source = path.join(this.deps.directory, id);
    if (!folder) {
      this.deps.log.warn({ upload: id }, 'inbox: an upload finished for a folder removed meanwhile; it stays in the uploads folder');
      return undefined;
    }
    const target = await freeName(folder.path, metadata.filename ?? `${id}.cbz`);
    await moveNoClobber(source, target, null);
    await this.store.configstore.delete(id).catch(() => undefined);
    const info = await stat(target);
    const item = await this.deps.inbox.arrived(folder.id, { path: target, size: info.size, mtimeMs: info.mtimeMs, supported: true });
    return item?.id;
  }
}
