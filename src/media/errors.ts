/**
 * Every failure of the media layer is a MediaError with a `kind` a caller can branch on (HTTP status, book
 * error flag, retry or not). Library errors (yauzl, unrar, pdfjs, sharp) are translated at the boundary of
 * the module that called them, so nothing else leaks upward.
 */
export type MediaErrorKind =
  | 'not_found' // the file (or the page number) does not exist
  | 'unsupported' // a format we recognise but do not read (7z), or an image format we cannot decode
  | 'corrupt' // truncated, malformed or inconsistent data
  | 'encrypted' // password-protected entries or archives
  | 'too_large' // a configured limit refused the input (declared size, ratio, pixels, memory)
  | 'no_pages' // a readable book without a single page
  | 'timeout' // the work took longer than allowed
  | 'aborted' // the caller cancelled
  | 'worker_crashed' // the isolated worker died (out of memory, native crash)
  | 'unavailable'; // the server could not read a file it may read (descriptors exhausted, a handle closed, busy): retry later

/**
 * Error codes of the operating system that say nothing about the file's content: the same read succeeds once
 * the server has descriptors or memory again. They must never mark a book as damaged.
 */
const SERVER_CONDITION_CODES = new Set(['EBADF', 'EMFILE', 'ENFILE', 'EBUSY', 'EAGAIN', 'EINTR', 'ENOMEM', 'ETIMEDOUT']);

export function isServerCondition(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && SERVER_CONDITION_CODES.has(code);
}

export class MediaError extends Error {
  constructor(
    readonly kind: MediaErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MediaError';
  }
}

export function isMediaError(err: unknown): err is MediaError {
  return err instanceof MediaError;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Keeps a MediaError as is and wraps anything else with the given kind. */
export function asMediaError(err: unknown, kind: MediaErrorKind, context: string): MediaError {
  if (err instanceof MediaError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new MediaError('not_found', `${context}: file not found`, { cause: err });
  if (isAbortError(err)) return new MediaError('aborted', `${context}: aborted`, { cause: err });
  if (isServerCondition(err)) return new MediaError('unavailable', `${context}: ${errorMessage(err)}`, { cause: err });
  return new MediaError(kind, `${context}: ${errorMessage(err)}`, { cause: err });
}

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || (err as { code?: unknown }).code === 'ABORT_ERR');
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new MediaError('aborted', 'aborted by the caller');
}

/**
 * A media error's message as a client may see it: readers name the file by its absolute path, and where the
 * server keeps its libraries is none of a client's business. Each absolute path keeps only its last part.
 */
export function publicMediaMessage(err: MediaError): string {
  return err.message.replace(/(^|[\s('"])\/(?:[^/\n]*\/)+/g, '$1');
}
