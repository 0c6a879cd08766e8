import type { FileHeader } from 'node-unrar-js';
import { comicCoverRef, comicInfoMetadata } from './comic-archive.js';
import { parseComicInfo } from '../metadata/comicinfo.js';
import { findComicInfoName } from './cbz.js';
import { MediaError } from '../errors.js';
import { probeImage } from '../images/image-probe.js';
import { imageTypeFromName, isPageEntryName, sniffImageType } from '../images/image-types.js';
import { type MediaLimits, resolveLimits } from '../limits.js';
import { sortPageNames } from './page-order.js';
import type { ReaderOptions } from './reader-options.js';
import type { BookReader, CoverRef, EmbeddedMetadata, PageData, PageEntry, PageInfo } from '../types.js';
import { RarFile } from '../archives/unrar.js';

/** A RAR entry with its archive name (the extraction key) and the slash-separated name we show and sort. */
interface RarMember {
  rawName: string;
  name: string;
  header: FileHeader;
}

/** Largest RAR we load into memory; the WASM build cannot read from a file descriptor. */
const MAX_RAR_BYTES = 2 * 1024 * 1024 * 1024;

function assertReadable(member: RarMember, limits: MediaLimits, label: string): void {
  const { header } = member;
  const where = `${label}: entry "${member.name}"`;
  if (header.flags.encrypted) throw new MediaError('encrypted', `${where} is encrypted`);
  if (header.unpSize > limits.maxEntryBytes) {
    throw new MediaError('too_large', `${where} declares ${header.unpSize} bytes, over the limit of ${limits.maxEntryBytes}`);
  }
  if (header.unpSize > limits.ratioCheckAboveBytes && header.unpSize > header.packSize * limits.maxCompressionRatio) {
    throw new MediaError('too_large', `${where} compression ratio exceeds ${limits.maxCompressionRatio}:1`);
  }
}

class CbrReader implements BookReader {
  readonly format = 'cbr' as const;
  private readonly entries: PageEntry[];
  private comicInfo: Promise<ReturnType<typeof parseComicInfo> | null> | undefined;

  constructor(
    private readonly rar: RarFile,
    private readonly members: readonly RarMember[],
    private readonly all: readonly RarMember[],
    private readonly limits: MediaLimits,
  ) {
    this.entries = members.map((member, i) => ({
      number: i + 1,
      file_name: member.name,
      media_type: imageTypeFromName(member.name) ?? 'application/octet-stream',
      size: member.header.unpSize,
    }));
  }

  listPages(): readonly PageEntry[] {
    return this.entries;
  }

  async pages(signal?: AbortSignal): Promise<PageInfo[]> {
    const byRawName = new Map(this.members.map((member, i) => [member.rawName, i]));
    const result: PageInfo[] = this.entries.map((entry) => ({ ...entry, width: null, height: null }));
    // One pass in archive order: a solid archive would otherwise inflate its start once per page.
    await this.rar.each(
      this.members.map((member) => member.rawName),
      async (rawName, data) => {
        if (signal?.aborted) throw new MediaError('aborted', 'aborted by the caller');
        const index = byRawName.get(rawName);
        const page = index === undefined ? undefined : result[index];
        if (!page) return;
        const header = await probeImage(data);
        page.media_type = header?.mediaType ?? page.media_type;
        page.width = header?.width ?? null;
        page.height = header?.height ?? null;
      },
    );
    return result;
  }

  private memberOf(n: number): RarMember {
    const member = Number.isInteger(n) ? this.members[n - 1] : undefined;
    if (!member) throw new MediaError('not_found', `page ${n} does not exist (the book has ${this.members.length})`);
    return member;
  }

  async readPage(n: number): Promise<PageData> {
    const member = this.memberOf(n);
    const data = await this.rar.read(member.rawName);
    return { data, mediaType: sniffImageType(data) ?? imageTypeFromName(member.name) ?? 'application/octet-stream' };
  }

  private readComicInfo(): Promise<ReturnType<typeof parseComicInfo> | null> {
    this.comicInfo ??= (async () => {
      const name = findComicInfoName(this.all.map((member) => member.name));
      const member = this.all.find((candidate) => candidate.name === name);
      if (!member) return null;
      if (member.header.unpSize > this.limits.maxXmlBytes) {
        throw new MediaError('too_large', `${this.rar.label}: ComicInfo.xml is larger than ${this.limits.maxXmlBytes} bytes`);
      }
      return parseComicInfo((await this.rar.read(member.rawName)).toString('utf8'));
    })();
    return this.comicInfo;
  }

  async metadata(): Promise<EmbeddedMetadata | null> {
    return comicInfoMetadata(await this.readComicInfo());
  }

  coverRef(): Promise<CoverRef> {
    return comicCoverRef(
      () => this.readComicInfo(),
      this.members.length,
      (n) => this.memberOf(n).name,
    );
  }

  async cover(): Promise<PageData & CoverRef> {
    const ref = await this.coverRef();
    return { ...(await this.readPage(ref.pageNumber ?? 1)), ...ref };
  }

  async close(): Promise<void> {
    // Nothing is held but memory.
  }
}

export async function openCbr(path: string, options: ReaderOptions = {}): Promise<BookReader> {
  const limits = resolveLimits(options.limits);
  const rar = await RarFile.load(path, MAX_RAR_BYTES);
  if (rar.headers.length > limits.maxEntries) {
    throw new MediaError('too_large', `${path}: ${rar.headers.length} entries exceed the limit of ${limits.maxEntries}`);
  }
  const all: RarMember[] = rar.headers
    .filter((header) => !header.flags.directory)
    .map((header) => ({ rawName: header.name, name: header.name.replaceAll('\\', '/'), header }));
  const declaredTotal = all.reduce((sum, member) => sum + member.header.unpSize, 0);
  if (declaredTotal > limits.maxTotalBytes)
    throw new MediaError('too_large', `${path}: declared uncompressed size exceeds ${limits.maxTotalBytes} bytes`);

  let members: RarMember[] | undefined;
  if (options.knownPages && options.knownPages.length > 0) {
    const byName = new Map(all.map((member) => [member.name, member]));
    const known = options.knownPages.map((name) => byName.get(name));
    if (known.every((member): member is RarMember => member !== undefined)) members = known;
  }
  if (!members) {
    members = sortPageNames(
      all.filter((member) => isPageEntryName(member.name)),
      (member) => member.name,
    );
    for (const member of members) assertReadable(member, limits, path);
  }
  if (members.length === 0) throw new MediaError('no_pages', `${path}: the archive holds no images`);
  return new CbrReader(rar, members, all, limits);
}
