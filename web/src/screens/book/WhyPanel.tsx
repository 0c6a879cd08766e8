import { Trans } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ok } from '../../api/client';
import { ErrorMessage } from '../../components/ErrorView';
import { humanizeTimestamps } from '../../lib/format';

/**
 * "Why?": what the scans decided about this book's file and where its name, number and series came from, in the
 * explainer's sentences (GET /books/{id}/explain). Asked for only when opened.
 */
export function WhyPanel({ bookId }: { bookId: string }) {
  const [open, setOpen] = useState(false);
  const explain = useQuery({
    queryKey: ['books', 'explain', bookId],
    queryFn: () => ok(api.GET('/api/v1/books/{id}/explain', { params: { path: { id: bookId } } })),
    enabled: open,
  });
  return (
    <details className="why-panel" onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>
        <Trans>Why?</Trans>
      </summary>
      <ErrorMessage error={explain.error} />
      {open && explain.isPending && (
        <p role="status">
          <Trans>Loading why…</Trans>
        </p>
      )}
      {explain.data && explain.data.sentences.length === 0 && (
        <p className="hint">
          <Trans>Nothing to explain about this book yet.</Trans>
        </p>
      )}
      {explain.data && <Sentences sentences={explain.data.sentences} />}
    </details>
  );
}

/** The explainer's sentences, their ISO timestamps told as dates in the reader's language with how long ago. */
export function Sentences({ sentences }: { sentences: readonly string[] }) {
  return (
    <ul className="why-sentences">
      {sentences.map((sentence, i) => (
        <li key={i}>{humanizeTimestamps(sentence)}</li>
      ))}
    </ul>
  );
}
