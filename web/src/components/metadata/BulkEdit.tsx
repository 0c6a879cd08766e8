import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, ok } from '../../api/client';
import { ErrorMessage } from '../ErrorView';
import { FormDialog, refreshAfterEdit, useModal } from './dialog';
import { SERIES_GROUPS } from './fields';
import { WordsInput } from './WordsInput';
import { WriteBackNote } from './WriteBackNote';

/** A choice of a series field (its options in the Edit dialog), or leaving each series' own value. */
function LeaveOrSet({ name, value, onChange }: { name: string; value: string; onChange(value: string): void }) {
  const id = useId();
  const { t, i18n } = useLingui();
  const spec = SERIES_GROUPS.flatMap((g) => g.fields).find((f) => f.name === name)!;
  return (
    <div className="field">
      <label htmlFor={id}>{i18n._(spec.label)}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{t`Leave as it is`}</option>
        {spec.options?.map(([v, l]) => (
          <option key={v} value={v}>
            {i18n._(l)}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * "Edit selected…" of the grid's selection bar: one change for every selected series or book, in one request and
 * one history entry (undone as a whole from any of their histories). Series: reading direction, status, genres and
 * tags added or removed; books: tags added or removed. Fields left alone keep each one's own value.
 */
export function BulkEditDialog({ kind, ids, title, onClose }: { kind: 'series' | 'books'; ids: string[]; title: string; onClose(): void }) {
  const dialog = useModal();
  const queryClient = useQueryClient();
  const { t } = useLingui();
  const [direction, setDirection] = useState('');
  const [status, setStatus] = useState('');
  const [addGenres, setAddGenres] = useState<string[]>([]);
  const [removeGenres, setRemoveGenres] = useState<string[]>([]);
  const [addTags, setAddTags] = useState<string[]>([]);
  const [removeTags, setRemoveTags] = useState<string[]>([]);
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
    onSuccess: () => refreshAfterEdit(queryClient),
  });
  const total = ids.length;
  const updated = save.data?.updated ?? 0;
  const nothing = !direction && !status && addGenres.length + removeGenres.length + addTags.length + removeTags.length === 0;
  return (
    <FormDialog
      dialog={dialog}
      className="edit-metadata"
      heading={<Trans>Edit {title}</Trans>}
      onSubmit={() => !nothing && save.mutate()}
      onClose={onClose}
      actions={
        <button type="submit" className="primary" disabled={nothing || save.isPending}>
          {save.isPending ? <Trans>Saving…</Trans> : <Trans>Apply to {title}</Trans>}
        </button>
      }
    >
      <p className="hint">
        <Trans>Only what you set here changes; the changed fields are locked. Undo it from any of their histories.</Trans>
      </p>
      {kind === 'series' && (
        <fieldset className="edit-group">
          <legend>
            <Trans context="group of fields">Reading</Trans>
          </legend>
          <LeaveOrSet name="reading_direction" value={direction} onChange={setDirection} />
          <LeaveOrSet name="status" value={status} onChange={setStatus} />
        </fieldset>
      )}
      <fieldset className="edit-group">
        <legend>{kind === 'series' ? <Trans>Genres and tags</Trans> : <Trans>Tags</Trans>}</legend>
        {kind === 'series' && (
          <>
            <WordsInput label={t`Add genres`} values={addGenres} suggestions={[]} onChange={setAddGenres} />
            <WordsInput label={t`Remove genres`} values={removeGenres} suggestions={[]} onChange={setRemoveGenres} />
          </>
        )}
        <WordsInput label={t`Add tags`} values={addTags} suggestions={[]} onChange={setAddTags} />
        <WordsInput label={t`Remove tags`} values={removeTags} suggestions={[]} onChange={setRemoveTags} />
      </fieldset>
      <ErrorMessage error={save.error} />
      {save.data && (
        <p className="hint" role="status">
          <Trans>
            Changed {updated} of {total}.
          </Trans>
        </p>
      )}
      {save.data?.write_back && <WriteBackNote report={save.data.write_back} />}
    </FormDialog>
  );
}
