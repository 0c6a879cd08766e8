import { Plural, Trans } from '@lingui/react/macro';
import { Link } from '@tanstack/react-router';
import type { components } from '../../api/client';
import { Cover } from '../../components/Cover';

export type Collection = components['schemas']['Collection'];
export type ReadList = components['schemas']['ReadList'];

/** A collection in a grid: its cover (its chosen or first series'), name and series count. */
export function CollectionCard({ collection }: { collection: Collection }) {
  const seriesCount = collection.series_count;
  return (
    <Link to="/collections/$collectionId" params={{ collectionId: collection.id }} className="card-link" data-testid="collection-card">
      <Cover src={`/api/v1/collections/${collection.id}/thumbnail`} alt="" />
      <span className="card-title">
        {collection.name}
        <span className="visually-hidden">, </span>
      </span>
      <span className="card-sub">
        <Plural value={seriesCount} one="# series" other="# series" />
        {collection.shared ? (
          <>
            {' · '}
            <Trans context="list">shared</Trans>
          </>
        ) : (
          ''
        )}
      </span>
    </Link>
  );
}

/** A read list in a grid: its cover (its chosen or first book's), name, book count and entries still missing. */
export function ReadListCard({ readList }: { readList: ReadList }) {
  const bookCount = readList.book_count;
  const missingCount = readList.missing_count;
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
        <Plural value={bookCount} one="# book" other="# books" />
        {missingCount > 0 ? (
          <>
            {' · '}
            <Plural value={missingCount} one="# missing" other="# missing" />
          </>
        ) : (
          ''
        )}
      </span>
    </Link>
  );
}
