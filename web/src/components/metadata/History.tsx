import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ok, type components } from '../../api/client';
import { formatDate } from '../../lib/format';
import { coversChanged } from '../Cover';
import { ErrorMessage } from '../ErrorView';
import { refreshAfterEdit } from './dialog';
import { BOOK_GROUPS, SERIES_GROUPS } from './fields';

type Entry = components['schemas']['MetadataHistoryEntry'];

/** Field names in words ("reading_direction" → "Reading direction"); the API's name for a field the form lacks. */
const LABELS: Record<string, string> = Object.fromEntries(
  [...SERIES_GROUPS, ...BOOK_GROUPS].flatMap((g) => g.fields).map((f) => [f.name, f.label]),
);
const SIDE_FIELDS: Record<string, string> = { cover: 'Cover', sharing_labels: 'Sharing labels' };
const labelOf = (field: string) => SIDE_FIELDS[field] ?? LABELS[field] ?? field.replace(/_/g, ' ');

/** A cover entry's value in words: `{source: generated | page | upload, …}`. */
const coverShown = (v: unknown): string => {
  const c = (v ?? {}) as { source?: string; page?: number | null };
  if (c.source === 'page') return c.page ? `page ${c.page}` : 'a page';
  if (c.source === 'upload') return 'an uploaded image';
  return 'the generated cover';
};

const shown = (v: unknown): string => {
  if (v === null || v === undefined || v === '') return '(none)';
  if (Array.isArray(v))
    return v.length === 0
      ? '(none)'
      : v.map((x) => (typeof x === 'object' && x ? Object.values(x as object).join(' / ') : String(x))).join(', ');
  return typeof v === 'object' ? JSON.stringify(v) : String(v as string | number);
};

/**
 * The metadata history of a series or a book (folded under one line): every change with who made it (a person or a
 * scan), before → after, and an Undo that undoes the whole change it belonged to (a bulk edit as a whole).
 */
export function MetadataHistory({ kind, id }: { kind: 'series' | 'book'; id: string }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const key = [kind === 'series' ? 'series' : 'books', id, 'history'];
  const history = useQuery({
    queryKey: key,
    queryFn: () =>
      kind === 'series'
        ? ok(api.GET('/api/v1/series/{id}/history', { params: { path: { id }, query: { pageSize: 100 } } }))
        : ok(api.GET('/api/v1/books/{id}/history', { params: { path: { id }, query: { pageSize: 100 } } })),
    enabled: open,
  });
  const undo = useMutation({
    mutationFn: (entryId: string) => ok(api.POST('/api/v1/history/{entry_id}/undo', { params: { path: { entry_id: entryId } } })),
    onSuccess: async () => {
      coversChanged();
      await refreshAfterEdit(queryClient);
    },
  });
  const entries: Entry[] = history.data?.data ?? [];
  return (
    <details className="sharing-labels metadata-history" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>History of changes</summary>
      <ErrorMessage error={history.error ?? undo.error} />
      {history.isPending && open && <p className="hint">Loading…</p>}
      {history.data && entries.length === 0 && <p className="hint">No changes yet.</p>}
      <ol className="history-list" aria-label="Changes, newest first">
        {entries.map((e) => (
          <li key={e.id} className={e.undone_at ? 'undone' : undefined}>
            <span>
              <strong>{labelOf(e.field)}</strong>:{' '}
              {e.field === 'cover' ? `${coverShown(e.before)} → ${coverShown(e.after)}` : `${shown(e.before)} → ${shown(e.after)}`}
            </span>
            <span className="hint">
              {' '}
              · {e.source === 'scan' ? 'scan' : (e.username ?? 'a person')} · {formatDate(e.created_at)}
              {e.undone_at ? ' · undone' : ''}
            </span>
            {!e.undone_at && (
              <button type="button" className="small" disabled={undo.isPending} onClick={() => undo.mutate(e.id)}>
                Undo<span className="visually-hidden"> the change of {labelOf(e.field)}</span>
              </button>
            )}
          </li>
        ))}
      </ol>
    </details>
  );
}

/** The genres and tags of a library's series (the first 500), offered while editing. */
export function useLibraryWords(libraryId: string | undefined, enabled: boolean): { genres: string[]; tags: string[] } {
  const list = useQuery({
    queryKey: ['series', 'words', libraryId],
    queryFn: () => ok(api.GET('/api/v1/series', { params: { query: { library_id: libraryId, pageSize: 500 } } })),
    enabled: enabled && !!libraryId,
    staleTime: 60_000,
  });
  const words = (pick: (m: components['schemas']['SeriesMetadata']) => string[]) =>
    [...new Set((list.data?.data ?? []).flatMap((s) => pick(s.metadata)))].sort((a, b) => a.localeCompare(b));
  return { genres: words((m) => m.genres), tags: words((m) => m.tags) };
}
