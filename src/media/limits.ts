/**
 * Limits that turn hostile input into a `too_large` MediaError instead of exhausted memory or disk.
 * Defaults are generous for real books (a 4 GB CBZ of 50 MB scans passes) and small for bombs.
 */
export interface MediaLimits {
  /** Largest single entry we inflate, by declared and by actual size. */
  maxEntryBytes: number;
  /** Sum of declared uncompressed sizes of all entries of an archive. */
  maxTotalBytes: number;
  /** Largest compressed/uncompressed ratio tolerated for an entry bigger than `ratioCheckAboveBytes`. */
  maxCompressionRatio: number;
  ratioCheckAboveBytes: number;
  /** Entries listed in one archive. */
  maxEntries: number;
  /** Pixels (width × height) of an image we decode; sharp's default is 0x3FFF². */
  maxInputPixels: number;
  /** Bytes of a metadata document we parse (ComicInfo.xml, OPF, container.xml, XHTML). */
  maxXmlBytes: number;
}

export const DEFAULT_LIMITS: Readonly<MediaLimits> = Object.freeze({
  maxEntryBytes: 256 * 1024 * 1024,
  maxTotalBytes: 16 * 1024 * 1024 * 1024,
  maxCompressionRatio: 200,
  ratioCheckAboveBytes: 8 * 1024 * 1024,
  maxEntries: 50_000,
  maxInputPixels: 0x3fff * 0x3fff,
  maxXmlBytes: 8 * 1024 * 1024,
});

export function resolveLimits(overrides?: Partial<MediaLimits>): MediaLimits {
  return { ...DEFAULT_LIMITS, ...overrides };
}
