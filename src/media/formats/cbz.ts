import { comicCoverRef, comicInfoMetadata } from './comic-archive.js';
import { parseComicInfo } from '../metadata/comicinfo.js';
import { MediaError } from '../errors.js';
import { imageTypeFromName, isPageEntryName, sniffImageType } from '../images/image-types.js';
import { type MediaLimits, resolveLimits } from '../limits.js';
import { sortPageNames } from './page-order.js';
import { probePages } from './page-probe.js';
import type { ReaderOptions } from './reader-options.js';
import type { BookReader, CoverRef, EmbeddedMetadata, PageData, PageEntry, PageInfo } from '../types.js';
import { ZipArchive, type ZipMember } from '../archives/zip-archive.js';

/** The ComicInfo.xml of an archive: at the root by convention, anywhere as a fallback. */
export function findComicInfoName(names: readonly string[]): string | null {
  const candidates = names.filter((name) => /(^|\/)comicinfo\.xml$/i.test(name) && !name.includes('__MACOSX'));
  return candidates.find((name) => !name.includes('/')) ?? candidates[0] ?? null;
}

function pageMembers(archive: ZipArchive, knownPages: readonly string[] | undefined): ZipMember[] {
  if (knownPages && knownPages.length > 0) {
    const known = knownPages.map((name) => archive.get(name));
    if (known.every((member): member is ZipMember => member !== undefined)) return known;
  }
  const pages: ZipMember[] = [];
  for (const member of archive.members) if (isPageEntryName(member.name)) pages.push(member);
  const members = sortPageNames(pages, (member) => member.name);
  // Refuse bombs and encrypted pages up front, so analysis fails with the reason instead of on page 37.
  for (const member of members) archive.assertReadable(member);
  return members;
}

class CbzReader implements BookReader {
  readonly format = 'cbz' as const;
  private readonly entries: PageEntry[];
  private comicInfo: Promise<ReturnType<typeof parseComicInfo> | null> | undefined;

  constructor(
    private readonly archive: ZipArchive,
    private readonly members: readonly ZipMember[],
    private readonly limits: MediaLimits,
  ) {
    // Built by push for a stable array map (see sortPageNames).
    this.entries = [];
    for (const [i, member] of members.entries()) {
      this.entries.push({
        number: i + 1,
        file_name: member.name,
        media_type: imageTypeFromName(member.name) ?? 'application/octet-stream',
        size: member.size,
      });
    }
  }

  listPages(): readonly PageEntry[] {
    return this.entries;
  }

  pages(signal?: AbortSignal): Promise<PageInfo[]> {
    return probePages(
      this.entries,
      {
        head: (page, bytes) => this.archive.read(this.memberOf(page.number), { headBytes: bytes, transient: true, signal }),
        headAtHand: (page, bytes) => this.archive.headAtHand(this.memberOf(page.number), bytes),
        whole: (page) => this.archive.read(this.memberOf(page.number), { signal }),
      },
      signal,
    );
  }

  private memberOf(n: number): ZipMember {
    const member = Number.isInteger(n) ? this.members[n - 1] : undefined;
    if (!member) throw new MediaError('not_found', `page ${n} does not exist (the book has ${this.members.length})`);
    return member;
  }

  async readPage(n: number, hint?: { signal?: AbortSignal }): Promise<PageData> {
    const member = this.memberOf(n);
    const data = await this.archive.read(member, { signal: hint?.signal });
    return { data, mediaType: sniffImageType(data) ?? imageTypeFromName(member.name) ?? 'application/octet-stream' };
  }

  async storedPage(n: number): Promise<{ start: number; length: number } | null> {
    return this.archive.storedRange(this.memberOf(n));
  }

  private readComicInfo(): Promise<ReturnType<typeof parseComicInfo> | null> {
    this.comicInfo ??= (async () => {
      const names: string[] = []; // by push: see sortPageNames
      for (const member of this.archive.members) names.push(member.name);
      const name = findComicInfoName(names);
      const member = name === null ? undefined : this.archive.get(name);
      if (!member) return null;
      return parseComicInfo(await this.archive.readText(member, this.limits.maxXmlBytes));
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
    this.archive.close();
  }
}

export async function openCbz(path: string, options: ReaderOptions = {}): Promise<BookReader> {
  const limits = resolveLimits(options.limits);
  const archive = await ZipArchive.open(path, limits, options.data);
  try {
    const members = pageMembers(archive, options.knownPages);
    if (members.length === 0) throw new MediaError('no_pages', `${path}: the archive holds no images`);
    return new CbzReader(archive, members, limits);
  } catch (err) {
    archive.close();
    throw err;
  }
}
