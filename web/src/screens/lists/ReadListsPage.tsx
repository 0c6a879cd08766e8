import { Trans } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { meQuery, readListsQuery } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorView';
import { CblImportDialog } from './CblImport';
import { ReadListCard } from './ListCards';

/** Every read list the caller sees, as a grid of covers, with the import of a ComicRack reading list (.cbl). */
export function ReadListsPage() {
  const lists = useQuery(readListsQuery);
  // Importing into one's own list needs what browsing read lists needs.
  const permissions = useQuery(meQuery).data?.permissions ?? [];
  const canImport = permissions.includes('books-read') || permissions.includes('read-lists-read');
  const [importing, setImporting] = useState(false);
  return (
    <div className="page">
      <div className="shelf-head">
        <h1>
          <Trans>Read lists</Trans>
        </h1>
        {canImport && (
          <button type="button" onClick={() => setImporting(true)}>
            <Trans>Import a reading list (.cbl)…</Trans>
          </button>
        )}
      </div>
      {importing && <CblImportDialog onClose={() => setImporting(false)} />}
      <ErrorMessage error={lists.error} />
      {lists.isPending && (
        <p>
          <Trans>Loading…</Trans>
        </p>
      )}
      {lists.data?.data.length === 0 && (
        <p className="empty">
          <Trans>No read lists yet. On a book page, "Add to read list…" starts one; or import a ComicRack reading list.</Trans>
        </p>
      )}
      {lists.data && lists.data.data.length > 0 && (
        <ul className="grid">
          {lists.data.data.map((l) => (
            <li key={l.id}>
              <ReadListCard readList={l} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
