import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ok } from '../../api/client';
import { ErrorMessage } from '../../components/ErrorView';

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
      <summary>Why?</summary>
      <ErrorMessage error={explain.error} />
      {open && explain.isPending && <p>Loading…</p>}
      {explain.data && <Sentences sentences={explain.data.sentences} />}
    </details>
  );
}

export function Sentences({ sentences }: { sentences: readonly string[] }) {
  return (
    <ul className="why-sentences">
      {sentences.map((sentence, i) => (
        <li key={i}>{sentence}</li>
      ))}
    </ul>
  );
}
