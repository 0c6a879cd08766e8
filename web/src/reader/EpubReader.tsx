import type { Book, PageInfo } from './data';

export function EpubReader({ book }: { book: Book; pages: PageInfo[]; seriesTitle: string }) {
  return <div className="reader reader-message">EPUB reader for {book.title}</div>;
}
