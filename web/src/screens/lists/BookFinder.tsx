import { Trans, useLingui } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, ok } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { ErrorMessage } from '../../components/ErrorView';
import { bookLabel } from '../../lib/format';
import { useDebounced } from '../../lib/use-debounced';

const RESULTS = 8;

/**
 * A book found by hand for a reading list entry the library did not match: search by title or series (the library's
 * full-text search, only what the caller sees) and pick one of the first results.
 */
export function BookFinder({ entry, onPick }: { entry: string; onPick(book: { id: string; label: string }): void }) {
  const { t } = useLingui();
  const [text, setText] = useState('');
  const q = useDebounced(text.trim(), 300);
  const inputId = useId();
  const found = useQuery({
    queryKey: [...queryKeys.books.all, 'finder', q],
    queryFn: () => ok(api.POST('/api/v1/books/list', { params: { query: { page: 1, pageSize: RESULTS } }, body: { fullTextSearch: q } })),
    enabled: q.length >= 2,
  });
  return (
    <div className="book-finder">
      <label htmlFor={inputId} className="inline-label">
        <Trans>Find a book for {entry}</Trans>
      </label>
      <input id={inputId} type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder={t`Title or series…`} />
      <ErrorMessage error={found.error} />
      {q.length >= 2 && found.data && (
        <ul className="finder-results" aria-label={t`Books found for ${entry}`}>
          {found.data.data.length === 0 && (
            <li className="hint">
              <Trans>No book matches “{q}”.</Trans>
            </li>
          )}
          {found.data.data.map((b) => {
            const label = `${b.metadata.series ? `${b.metadata.series} ` : ''}${bookLabel(b)}`;
            return (
              <li key={b.id}>
                <button type="button" className="small" onClick={() => onPick({ id: b.id, label })}>
                  <Trans>
                    Pick<span className="visually-hidden">:</span> {label}
                  </Trans>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
