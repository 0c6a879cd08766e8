/**
 * Absolute-path hrefs of the OPDS 1.2 tree. The tree answers under `/opds/v1` and `/opds/v1.2`; a feed's links
 * keep the prefix the client came in by, so a reader configured with either stays on it.
 */
export const OPDS1_PREFIXES = ['/opds/v1', '/opds/v1.2'] as const;

export class Opds1Paths {
  constructor(readonly prefix: string) {}

  static fromUrl(url: string): Opds1Paths {
    return new Opds1Paths(url.startsWith('/opds/v1.2/') || url === '/opds/v1.2' ? '/opds/v1.2' : '/opds/v1');
  }

  catalog = () => `${this.prefix}/catalog`;
  libraries = () => `${this.prefix}/libraries`;
  library = (id: string) => `${this.prefix}/libraries/${id}`;
  allSeries = () => `${this.prefix}/series`;
  series = (id: string) => `${this.prefix}/series/${id}`;
  seriesThumbnail = (id: string) => `${this.prefix}/series/${id}/thumbnail`;
  collections = () => `${this.prefix}/collections`;
  collection = (id: string) => `${this.prefix}/collections/${id}`;
  readLists = () => `${this.prefix}/readlists`;
  readList = (id: string) => `${this.prefix}/readlists/${id}`;
  wantToRead = () => `${this.prefix}/want-to-read`;
  recentlyAdded = () => `${this.prefix}/books/recently-added`;
  keepReading = () => `${this.prefix}/books/keep-reading`;
  onDeck = () => `${this.prefix}/books/on-deck`;
  book = (id: string) => `${this.prefix}/books/${id}`;
  file = (id: string) => `${this.prefix}/books/${id}/file`;
  cover = (id: string) => `${this.prefix}/books/${id}/cover`;
  thumbnail = (id: string) => `${this.prefix}/books/${id}/thumbnail`;
  /** The PSE template: `{pageNumber}` (0-based) and `{maxWidth}` are filled in by the client. */
  pageStream = (id: string, convert: boolean) =>
    `${this.prefix}/books/${id}/pages/{pageNumber}?maxWidth={maxWidth}${convert ? '&convert=jpeg' : ''}`;
  search = (query?: string) => `${this.prefix}/search${query === undefined ? '' : `?q=${encodeURIComponent(query)}`}`;
  openSearch = () => `${this.prefix}/opensearch.xml`;
}
