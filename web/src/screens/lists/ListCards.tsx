import { Link } from '@tanstack/react-router';
import type { components } from '../../api/client';
import { Cover } from '../../components/Cover';
import { plural } from '../../lib/format';

export type Collection = components['schemas']['Collection'];
export type ReadList = components['schemas']['ReadList'];

/** A collection in a grid: its cover (its chosen or first series'), name and series count. */
export function CollectionCard({ collection }: { collection: Collection }) {
  return (
    <Link to="/collections/$collectionId" params={{ collectionId: collection.id }} className="card-link" data-testid="collection-card">
      <Cover src={`/api/v1/collections/${collection.id}/thumbnail`} alt="" />
      <span className="card-title">
        {collection.name}
        <span className="visually-hidden">, </span>
      </span>
      <span className="card-sub">
        {plural(collection.series_count, 'series', 'series')}
        {collection.shared ? ' · shared' : ''}
      </span>
    </Link>
  );
}

/** A read list in a grid: its cover (its chosen or first book's), name, book count and entries still missing. */
export function ReadListCard({ readList }: { readList: ReadList }) {
  return (
    <Link to="/read-lists/$readListId" params={{ readListId: readList.id }} className="card-link" data-testid="read-list-card">
      {readList.cover_book_id ? (
        <Cover src={`/api/v1/books/${readList.cover_book_id}/thumbnail`} alt="" />
      ) : (
        <div className="cover">
          <div className="cover-placeholder" aria-hidden="true" />
        </div>
      )}
      <span className="card-title">
        {readList.name}
        <span className="visually-hidden">, </span>
      </span>
      <span className="card-sub">
        {plural(readList.book_count, 'book')}
        {readList.missing_count > 0 ? ` · ${readList.missing_count} missing` : ''}
      </span>
    </Link>
  );
}
