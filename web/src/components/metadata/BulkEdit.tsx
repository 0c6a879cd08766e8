import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { api, ok } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { ErrorMessage } from '../ErrorView';
import { SERIES_GROUPS } from './fields';
import { WordsInput } from './WordsInput';

const option = (name: string) =>
  SERIES_GROUPS.flatMap((g) => g.fields)
    .find((f) => f.name === name)
    ?.options?.map(([v, l]) => ({ v, l })) ?? [];

/**
 * "Edit selected…" of the grid's selection bar: one change for every selected series or book, in one request and
 * one history entry (undone as a whole from any of their histories). Series: reading direction, status, genres and
 * tags added or removed; books: tags added or removed. Fields left alone keep each one's own value.
 */
export function BulkEditDialog({ kind, ids, title, onClose }: { kind: 'series' | 'books'; ids: string[]; title: string; onClose(): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const queryClient = useQueryClient();
  const titleId = useId();
  const directionId = useId();
  const statusId = useId();
  const [direction, setDirection] = useState('');
  const [status, setStatus] = useState('');
  const [addGenres, setAddGenres] = useState<string[]>([]);
  const [removeGenres, setRemoveGenres] = useState<string[]>([]);
  const [addTags, setAddTags] = useState<string[]>([]);
  const [removeTags, setRemoveTags] = useState<string[]>([]);
  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
  }, []);
  const save = useMutation({
    mutationFn: async () => {
      const words = (genres: string[], tags: string[]) => ({
        ...(genres.length > 0 && kind === 'series' ? { genres } : {}),
        ...(tags.length > 0 ? { tags } : {}),
      });
      if (kind === 'series') {
        const changes: {
          reading_direction?: 'ltr' | 'rtl' | 'vertical' | 'webtoon';
          status?: 'ongoing' | 'ended' | 'abandoned' | 'hiatus';
        } = {};
        if (direction) changes.reading_direction = direction as 'ltr';
        if (status) changes.status = status as 'ongoing';
        return ok(
          api.PATCH('/api/v1/series', {
            body: { ids, changes, add: words(addGenres, addTags), remove: words(removeGenres, removeTags) },
          }),
        );
      }
      return ok(api.PATCH('/api/v1/books', { body: { ids, changes: {}, add: words([], addTags), remove: words([], removeTags) } }));
    },
    onSuccess: () =>
      Promise.all(
        [queryKeys.series.all, queryKeys.books.all, queryKeys.shelves.all].map((queryKey) => queryClient.invalidateQueries({ queryKey })),
      ),
  });
  const nothing = !direction && !status && addGenres.length + removeGenres.length + addTags.length + removeTags.length === 0;
  return (
    <dialog ref={dialog} className="app-dialog edit-metadata" aria-labelledby={titleId} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!nothing) save.mutate();
        }}
      >
        <h2 id={titleId}>Edit {title}</h2>
        <p className="hint">Only what you set here changes; the changed fields are locked. Undo it from any of their histories.</p>
        {kind === 'series' && (
          <fieldset className="edit-group">
            <legend>Reading</legend>
            <div className="field">
              <label htmlFor={directionId}>Reading direction</label>
              <select id={directionId} value={direction} onChange={(e) => setDirection(e.target.value)}>
                <option value="">Leave as it is</option>
                {option('reading_direction').map(({ v, l }) => (
                  <option key={v} value={v}>
                    {l}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor={statusId}>Status</label>
              <select id={statusId} value={status} onChange={(e) => setStatus(e.target.value)}>
                <option value="">Leave as it is</option>
                {option('status').map(({ v, l }) => (
                  <option key={v} value={v}>
                    {l}
                  </option>
                ))}
              </select>
            </div>
          </fieldset>
        )}
        <fieldset className="edit-group">
          <legend>{kind === 'series' ? 'Genres and tags' : 'Tags'}</legend>
          {kind === 'series' && (
            <>
              <WordsInput label="Add genres" values={addGenres} suggestions={[]} onChange={setAddGenres} />
              <WordsInput label="Remove genres" values={removeGenres} suggestions={[]} onChange={setRemoveGenres} />
            </>
          )}
          <WordsInput label="Add tags" values={addTags} suggestions={[]} onChange={setAddTags} />
          <WordsInput label="Remove tags" values={removeTags} suggestions={[]} onChange={setRemoveTags} />
        </fieldset>
        <ErrorMessage error={save.error} />
        {save.data && (
          <p className="hint" role="status">
            Changed {save.data.updated} of {ids.length}.
          </p>
        )}
        <div className="actions">
          <button type="submit" className="primary" disabled={nothing || save.isPending}>
            {save.isPending ? 'Saving…' : `Apply to ${title}`}
          </button>
          <button type="button" onClick={() => dialog.current?.close()}>
            Close
          </button>
        </div>
      </form>
    </dialog>
  );
}
