import type { MediaLimits } from './limits.js';

export interface ReaderOptions {
  limits?: Partial<MediaLimits>;
  /**
   * Page file names in reading order as stored at analysis time. Archive readers then locate entries by name
   * instead of listing, sorting and (for EPUB) walking the spine again. Ignored when a name is missing.
   */
  knownPages?: readonly string[];
}
