import type { I18n, MessageDescriptor } from '@lingui/core';
import { msg, t } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
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
const LABELS: Record<string, MessageDescriptor> = {
  ...Object.fromEntries([...SERIES_GROUPS, ...BOOK_GROUPS].flatMap((g) => g.fields).map((f) => [f.name, f.label])),
  cover: msg`Cover`,
  sharing_labels: msg`Sharing labels`,
};
const labelOf = (i18n: I18n, field: string) => {
  const label = LABELS[field];
  return label ? i18n._(label) : field.replace(/_/g, ' ');
};

/** A cover entry's value in words: `{source: generated | page | upload, …}`. */
const coverShown = (v: unknown): string => {
  const c = (v ?? {}) as { source?: string; page?: number | null };
  const page = c.page;
  if (c.source === 'page') return page ? t`page ${page}` : t`a page`;
  if (c.source === 'upload') return t`an uploaded image`;
  return t`the generated cover`;
};

const shown = (v: unknown): string => {
  if (v === null || v === undefined || v === '') return t`(none)`;
  if (Array.isArray(v))
    return v.length === 0
      ? t`(none)`
      : v.map((x) => (typeof x === 'object' && x ? Object.values(x as object).join(' / ') : String(x))).join(', ');
  return typeof v === 'object' ? JSON.stringify(v) : String(v as string | number);
};

/**
 * The metadata history of a series or a book (folded under one line): every change with who made it (a person or a
 * scan), before → after, and an Undo that undoes the whole change it belonged to (a bulk edit as a whole).
 */
export function MetadataHistory({ kind, id }: { kind: 'series' | 'book'; id: string }) {
  const queryClient = useQueryClient();
  const { t, i18n } = useLingui();
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
      <summary>
        <Trans>History of changes</Trans>
      </summary>
      <ErrorMessage error={history.error ?? undo.error} />
      {history.isPending && open && (
        <p className="hint">
          <Trans>Loading…</Trans>
        </p>
      )}
      {history.data && entries.length === 0 && (
        <p className="hint">
          <Trans>No changes yet.</Trans>
        </p>
      )}
      <ol className="history-list" aria-label={t`Changes, newest first`}>
        {entries.map((e) => {
          const field = labelOf(i18n, e.field);
          return (
            <li key={e.id} className={e.undone_at ? 'undone' : undefined}>
              <span>
                <strong>{field}</strong>:{' '}
                {e.field === 'cover' ? `${coverShown(e.before)} → ${coverShown(e.after)}` : `${shown(e.before)} → ${shown(e.after)}`}
              </span>
              <span className="hint">
                {' '}
                · {e.source === 'scan' ? t({ message: 'scan', context: 'who made a change' }) : (e.username ?? t`a person`)} ·{' '}
                {formatDate(e.created_at)}
                {e.undone_at ? ` · ${t({ message: 'undone', context: 'a change' })}` : ''}
              </span>
              {!e.undone_at && (
                <button type="button" className="small" disabled={undo.isPending} onClick={() => undo.mutate(e.id)}>
                  <Trans>
                    Undo<span className="visually-hidden"> the change of {field}</span>
                  </Trans>
                </button>
              )}
            </li>
          );
        })}
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
