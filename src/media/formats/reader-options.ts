import type { MediaLimits } from '../limits.js';

export interface ReaderOptions {
  limits?: Partial<MediaLimits>;
  /**
   * Page file names in reading order as stored at analysis time. Archive readers then locate entries by name
   * instead of listing, sorting and (for EPUB) walking the spine again. Ignored when a name is missing.
   */
  knownPages?: readonly string[];
  /**
   * The whole file, already in memory (analysis reads a small book once to hash it and parses that buffer).
   * Zip-based readers (CBZ, EPUB) and PDF then never open the file; CBR ignores it. It must stay unchanged until
   * the reader is closed, and nothing the reader returns refers to it.
   */
  data?: Buffer;
}
