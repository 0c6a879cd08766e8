import { MediaError, errorMessage } from '../errors.js';
import { imageTypeFromName, sniffImageType } from '../images/image-types.js';
import { type MediaLimits, resolveLimits } from '../limits.js';
import { type ManifestItem, type OpfPackage, parseContainer, parseOpf } from '../metadata/opf.js';
import { probePages } from './page-probe.js';
import type { ReaderOptions } from './reader-options.js';
import type { BookReader, CoverRef, EmbeddedMetadata, PageData, PageEntry, PageInfo } from '../types.js';
import { documentContent } from './xhtml-images.js';
import { ZipArchive, type ZipMember } from '../archives/zip-archive.js';
const XHTML = 'application/xhtml+xml';
/** A page that wraps one image is small; a larger document is prose even if it shows a picture. */
const MAX_IMAGE_PAGE_DOCUMENT_BYTES = 64 * 1024;

/** Encryption algorithms that only obfuscate fonts; anything else listed in encryption.xml is DRM. */
const FONT_OBFUSCATION = new Set(['http://www.idpf.org/2008/embedding', 'http://ns.adobe.com/pdf/enc#RC']);

interface EpubPage {
  entry: PageEntry;
  member: ZipMember;
}

async function findOpfPath(archive: ZipArchive, limits: MediaLimits, label: string): Promise<string> {
  const container = archive.get('META-INF/container.xml');
  if (container) {
    const path = parseContainer(await archive.readText(container, limits.maxXmlBytes));
    if (path && archive.get(path)) return path;
    throw new MediaError('corrupt', `${label}: the package document ${path ?? '(none)'} named by container.xml is missing`);
  }
  // Lenient with producers that forget the container: a single OPF is unambiguous.
  const opfs = archive.members.filter((member) => member.name.toLowerCase().endsWith('.opf'));
  if (opfs.length === 1 && opfs[0]) return opfs[0].name;
  throw new MediaError('corrupt', `${label}: META-INF/container.xml is missing and no single package document was found`);
}

async function encryptedPaths(archive: ZipArchive, limits: MediaLimits): Promise<Set<string>> {
  const member = archive.get('META-INF/encryption.xml');
  const paths = new Set<string>();
  if (!member) return paths;
  const xml = await archive.readText(member, limits.maxXmlBytes);
  // URIs in encryption.xml are relative to the archive root.
  for (const match of xml.matchAll(/<(?:\w+:)?EncryptedData[\s\S]*?<\/(?:\w+:)?EncryptedData>/g)) {
    const algorithm = /Algorithm\s*=\s*["']([^"']+)["']/.exec(match[0])?.[1] ?? '';
    const uri = /<(?:\w+:)?CipherReference[^>]*URI\s*=\s*["']([^"']+)["']/.exec(match[0])?.[1];
    if (uri && !FONT_OBFUSCATION.has(algorithm)) paths.add(decodedUri(uri));
  }
  return paths;
}

/** A URI as written in the archive, decoded; one that is not valid percent-encoding is taken as it is written. */
function decodedUri(uri: string): string {
  try {
    return decodeURIComponent(uri);
  } catch {
    return uri;
  }
}

/**
 * Pages of an image book are its images; pages of a reflowable book are its spine documents. A book is an
 * image book when it declares a fixed layout or when every spine item is an image or a page wrapping one image.
 */
async function spinePages(archive: ZipArchive, opf: OpfPackage, limits: MediaLimits): Promise<Array<{ path: string; mediaType: string }>> {
  const resolved: Array<{ item: ManifestItem; image: string | null }> = [];
  // The image each document wraps, by document path: a spine may list the same document many times.
  const imageOfDocument = new Map<string, string | null>();
  // A reflowable book is an image book only if every page wraps one image: after the first page of prose the
  // other documents need not be read (a novel's hundreds of chapters were each inflated and parsed).
  let prose = false;
  for (const item of opf.spine) {
    if (item.mediaType.startsWith('image/')) {
      resolved.push({ item, image: item.path });
      continue;
    }
    let image = imageOfDocument.get(item.path);
    if (image === undefined && prose) image = null;
    if (image === undefined) {
      image = null;
      const member = archive.get(item.path);
      if (member && member.size <= MAX_IMAGE_PAGE_DOCUMENT_BYTES) {
        try {
          const content = documentContent(await archive.readText(member, limits.maxXmlBytes), item.path);
          const only = content.images[0];
          if (content.images.length === 1 && content.textLength === 0 && only && archive.get(only)) image = only;
        } catch {
          // A page we cannot parse is shown as a document.
        }
      }
      imageOfDocument.set(item.path, image);
      if (image === null && !opf.fixedLayout) prose = true;
    }
    resolved.push({ item, image });
  }
  const imageBook = opf.fixedLayout || (resolved.length > 0 && resolved.every((page) => page.image !== null));
  return resolved.map(({ item, image }) =>
    imageBook && image !== null
      ? { path: image, mediaType: imageTypeFromName(image) ?? item.mediaType }
      : { path: item.path, mediaType: item.mediaType.startsWith('image/') ? item.mediaType : XHTML },
  );
}

class EpubReader implements BookReader {
  readonly format = 'epub' as const;

  constructor(
    private readonly archive: ZipArchive,
    private readonly opf: OpfPackage,
    private readonly list: readonly EpubPage[],
    private readonly label: string,
  ) {}

  listPages(): readonly PageEntry[] {
    return this.list.map((page) => page.entry);
  }

  async pages(signal?: AbortSignal): Promise<PageInfo[]> {
    const images = this.list.filter((page) => page.entry.media_type.startsWith('image/'));
    const probed = await probePages(
      images.map((page) => page.entry),
      {
        head: (entry, bytes) => this.archive.read(this.pageOf(entry.number).member, { headBytes: bytes, transient: true, signal }),
        whole: (entry) => this.archive.read(this.pageOf(entry.number).member, { signal }),
      },
      signal,
    );
    const byNumber = new Map(probed.map((page) => [page.number, page]));
    return this.list.map((page) => byNumber.get(page.entry.number) ?? { ...page.entry, width: null, height: null });
  }

  private pageOf(n: number): EpubPage {
    const page = Number.isInteger(n) ? this.list[n - 1] : undefined;
    if (!page) throw new MediaError('not_found', `page ${n} does not exist (the book has ${this.list.length})`);
    return page;
  }

  async readPage(n: number, hint?: { signal?: AbortSignal }): Promise<PageData> {
    const page = this.pageOf(n);
    const data = await this.archive.read(page.member, { signal: hint?.signal });
    return { data, mediaType: sniffImageType(data) ?? page.entry.media_type };
  }

  async metadata(): Promise<EmbeddedMetadata> {
    return { source: 'opf', fields: this.opf.fields };
  }

  private async coverImagePath(): Promise<string | null> {
    const { coverPath, coverIsDocument } = this.opf;
    if (coverPath && !coverIsDocument && this.archive.get(coverPath)) return coverPath;
    if (coverPath && coverIsDocument) {
      const member = this.archive.get(coverPath);
      if (member) {
        try {
          const image = documentContent(await this.archive.readText(member, MAX_IMAGE_PAGE_DOCUMENT_BYTES), coverPath).images[0];
          if (image && this.archive.get(image)) return image;
        } catch {
          // Fall through to the first image.
        }
      }
    }
    const firstImagePage = this.list.find((page) => page.entry.media_type.startsWith('image/'));
    if (firstImagePage) return firstImagePage.entry.file_name;
    const firstImage = [...this.opf.manifest.values()].find((item) => item.mediaType.startsWith('image/') && this.archive.get(item.path));
    return firstImage?.path ?? null;
  }

  async coverRef(): Promise<CoverRef> {
    const path = await this.coverImagePath();
    if (!path) throw new MediaError('not_found', `${this.label}: the book has no cover image`);
    const index = this.list.findIndex((page) => page.entry.file_name === path);
    return { pageNumber: index >= 0 ? index + 1 : null, fileName: path };
  }

  async cover(): Promise<PageData & CoverRef> {
    const ref = await this.coverRef();
    const member = this.archive.get(ref.fileName);
    if (!member) throw new MediaError('not_found', `${this.label}: the cover image ${ref.fileName} is missing`);
    const data = await this.archive.read(member);
    return { data, mediaType: sniffImageType(data) ?? imageTypeFromName(ref.fileName) ?? 'application/octet-stream', ...ref };
  }

  async close(): Promise<void> {
    this.archive.close();
  }
}

function toPages(archive: ZipArchive, paths: ReadonlyArray<{ path: string; mediaType: string }>): EpubPage[] {
  const pages: EpubPage[] = [];
  for (const { path, mediaType } of paths) {
    const member = archive.get(path);
    // A spine item whose file is missing is skipped rather than failing the whole book.
    if (!member) continue;
    pages.push({
      member,
      entry: { number: pages.length + 1, file_name: path, media_type: mediaType, size: member.size },
    });
  }
  return pages;
}

export async function openEpub(path: string, options: ReaderOptions = {}): Promise<BookReader> {
  const limits = resolveLimits(options.limits);
  const archive = await ZipArchive.open(path, limits, options.data);
  try {
    const opfPath = await findOpfPath(archive, limits, path);
    const opfMember = archive.get(opfPath);
    if (!opfMember) throw new MediaError('corrupt', `${path}: package document ${opfPath} is missing`);
    let opf: OpfPackage;
    try {
      opf = parseOpf(await archive.readText(opfMember, limits.maxXmlBytes), opfPath);
    } catch (err) {
      throw err instanceof MediaError ? err : new MediaError('corrupt', `${path}: ${errorMessage(err)}`, { cause: err });
    }
    let pages: EpubPage[] | undefined;
    if (options.knownPages && options.knownPages.length > 0) {
      // The first manifest item of each path, looked up once per page rather than searched for.
      const itemByPath = new Map<string, ManifestItem>();
      for (const item of opf.manifest.values()) if (!itemByPath.has(item.path)) itemByPath.set(item.path, item);
      const known = options.knownPages.map((name) => {
        const member = archive.get(name);
        const item = itemByPath.get(name);
        return {
          path: name,
          mediaType: imageTypeFromName(name) ?? (item?.mediaType.startsWith('image/') ? item.mediaType : XHTML),
          member,
        };
      });
      if (known.every((page) => page.member !== undefined)) pages = toPages(archive, known);
    }
    if (!pages) {
      pages = toPages(archive, await spinePages(archive, opf, limits));
      const encrypted = await encryptedPaths(archive, limits);
      if (pages.some((page) => encrypted.has(page.entry.file_name))) {
        throw new MediaError('encrypted', `${path}: the book is protected by DRM`);
      }
      for (const page of pages) archive.assertReadable(page.member);
    }
    if (pages.length === 0) throw new MediaError('no_pages', `${path}: the spine lists no readable document`);
    return new EpubReader(archive, opf, pages, path);
  } catch (err) {
    archive.close();
    throw err;
  }
}
