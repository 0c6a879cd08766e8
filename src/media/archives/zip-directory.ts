import yauzl from 'yauzl';
import type { Entry } from 'yauzl';

/** One central directory record, as ZipArchive needs it. */
export interface DirectoryEntry {
  /** Decoded as yauzl decodes names (UTF-8 flag, Info-ZIP Unicode path field, else CP437), not normalised. */
  name: string;
  method: number;
  generalPurposeBitFlag: number;
  externalFileAttributes: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

/** The same record from an entry yauzl read (opened with decodeStrings off, as ZipArchive does). */
export function directoryEntryOf(entry: Entry): DirectoryEntry {
  return {
    name: yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileName as unknown as Buffer, entry.extraFields, false),
    method: entry.compressionMethod,
    generalPurposeBitFlag: entry.generalPurposeBitFlag,
    externalFileAttributes: entry.externalFileAttributes,
    compressedSize: entry.compressedSize,
    uncompressedSize: entry.uncompressedSize,
    localHeaderOffset: entry.relativeOffsetOfLocalHeader,
  };
}

const EOCDR_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ENTRY_SIGNATURE = 0x02014b50;
const EOCDR_BYTES = 22;
const ENTRY_BYTES = 46;

/**
 * The central directory of a zip archive held in memory, read synchronously: the common case only. Anything
 * unusual (ZIP64 records or fields, several disks, strong encryption, an inconsistent stored size, a malformed
 * extra field, a record past the end) returns null, and the caller lets yauzl parse the archive, which
 * accepts or reports it exactly as before. The same fields are read with the same rules as yauzl 3's
 * fromRandomAccessReader + readEntry (with decodeStrings off and validateEntrySizes on).
 *
 * Why not yauzl every time: on a buffer it still works through callbacks, two reads and a copy per record,
 * a 64 KiB copy to find the end record, and an event-loop turn at the end. For a 20-page book that was
 * ~180 µs, about as long as the rest of the book's analysis after hashing. A scan opens every book once.
 */
export function readCentralDirectory(data: Buffer): DirectoryEntry[] | null {
  // A DataView: Buffer's readUInt16LE/readUInt32LE, inlined a dozen times per record, made this one of the
  // costliest functions for V8 to optimise in each new worker thread.
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const eocdr = findEndRecord(data);
  if (eocdr < 0) return null;
  if (eocdr >= 20 && view.getUint32(eocdr - 20, true) === ZIP64_LOCATOR_SIGNATURE) return null;
  const diskNumber = view.getUint16(eocdr + 4, true);
  const entryCount = view.getUint16(eocdr + 10, true);
  const directoryOffset = view.getUint32(eocdr + 16, true);
  if (diskNumber !== 0 || entryCount === 0xffff || directoryOffset === 0xffffffff) return null;
  const entries: DirectoryEntry[] = [];
  let cursor = directoryOffset;
  for (let i = 0; i < entryCount; i++) {
    if (cursor + ENTRY_BYTES > data.length || view.getUint32(cursor, true) !== ENTRY_SIGNATURE) return null;
    const generalPurposeBitFlag = view.getUint16(cursor + 8, true);
    if (generalPurposeBitFlag & 0x40) return null;
    const method = view.getUint16(cursor + 10, true);
    const compressedSize = view.getUint32(cursor + 20, true);
    const uncompressedSize = view.getUint32(cursor + 24, true);
    const nameLength = view.getUint16(cursor + 28, true);
    const extraLength = view.getUint16(cursor + 30, true);
    const commentLength = view.getUint16(cursor + 32, true);
    const externalFileAttributes = view.getUint32(cursor + 38, true);
    const localHeaderOffset = view.getUint32(cursor + 42, true);
    if (compressedSize === 0xffffffff || uncompressedSize === 0xffffffff || localHeaderOffset === 0xffffffff) return null;
    const nameStart = cursor + ENTRY_BYTES;
    const extraStart = nameStart + nameLength;
    const next = extraStart + extraLength + commentLength;
    if (next > data.length) return null;
    const extraFields = parseExtraFields(data.subarray(extraStart, extraStart + extraLength));
    if (!extraFields || extraFields.some((field) => field.id === 0x0001)) return null;
    if (method === 0) {
      const expected = uncompressedSize + (generalPurposeBitFlag & 0x1 ? 12 : 0);
      if (compressedSize !== expected) return null;
    }
    const name =
      (extraFields.length === 0 || !extraFields.some((field) => field.id === UNICODE_PATH_FIELD)
        ? printableAsciiName(data, nameStart, extraStart)
        : null) ?? yauzl.getFileNameLowLevel(generalPurposeBitFlag, data.subarray(nameStart, extraStart), extraFields, false);
    entries.push({ name, method, generalPurposeBitFlag, externalFileAttributes, compressedSize, uncompressedSize, localHeaderOffset });
    cursor = next;
  }
  return entries;
}

const UNICODE_PATH_FIELD = 0x7075;

/**
 * A name of printable ASCII other than `\` reads the same in CP437 and in UTF-8, and yauzl would only have
 * turned backslashes into slashes: decoded in one call instead of yauzl's CP437 loop of one concatenation per
 * character (most archives do not flag their names UTF-8). Null for any other name.
 */
function printableAsciiName(data: Buffer, start: number, end: number): string | null {
  for (let i = start; i < end; i++) {
    const c = data[i]!;
    if (c < 0x20 || c > 0x7e || c === 0x5c) return null;
  }
  return data.toString('latin1', start, end);
}

/** The end record, searched backwards as yauzl does (its comment length must reach the end exactly); -1 if none. */
function findEndRecord(data: Buffer): number {
  const lowest = Math.max(0, data.length - EOCDR_BYTES - 0xffff - 20);
  for (let i = data.length - EOCDR_BYTES; i >= lowest; i--) {
    if (data.readUInt32LE(i) !== EOCDR_SIGNATURE) continue;
    // yauzl takes the last signature it finds and refuses the file when the comment length is wrong.
    return data.readUInt16LE(i + 20) === data.length - i - EOCDR_BYTES ? i : -1;
  }
  return -1;
}

function parseExtraFields(raw: Buffer): Array<{ id: number; data: Buffer }> | null {
  const fields: Array<{ id: number; data: Buffer }> = [];
  let i = 0;
  while (i < raw.length - 3) {
    const id = raw.readUInt16LE(i);
    const end = i + 4 + raw.readUInt16LE(i + 2);
    if (end > raw.length) return null;
    fields.push({ id, data: raw.subarray(i + 4, end) });
    i = end;
  }
  return fields;
}
