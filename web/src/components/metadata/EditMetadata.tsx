import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, detailsOf, ok, type components } from '../../api/client';
import { ErrorMessage } from '../ErrorView';
import { FormDialog, refreshAfterEdit, useModal } from './dialog';
import { BOOK_GROUPS, fieldInWords, rowProblems, SERIES_GROUPS, same, toApi, type FieldSpec, type Row } from './fields';
import { RowsEditor } from './RowsEditor';
import { WordsInput } from './WordsInput';
import { WriteBackNote } from './WriteBackNote';

type WriteBackReport = components['schemas']['WriteBackReport'];

type Series = components['schemas']['Series'];
type Book = components['schemas']['Book'];
export type EditTarget = { kind: 'series'; entity: Series } | { kind: 'book'; entity: Book };

/** The form's starting values: what GET shows (numbers as text for their fields). */
function initialValues(target: EditTarget): Record<string, unknown> {
  const m = target.entity.metadata as Record<string, unknown>;
  const groups = target.kind === 'series' ? SERIES_GROUPS : BOOK_GROUPS;
  const out: Record<string, unknown> = {};
  for (const f of groups.flatMap((g) => g.fields)) {
    const v = m[f.name];
    out[f.name] =
      f.kind === 'number' || f.kind === 'text' || f.kind === 'textarea' || f.kind === 'date' || f.kind === 'select' ? (v ?? '') : v;
    if (f.kind === 'number') out[f.name] = v === null || v === undefined ? '' : String(v as number);
  }
  return out;
}

/** A lock per field: shows whether scans keep the value, and toggles it. */
function LockToggle({ label, locked, onChange }: { label: string; locked: boolean; onChange(locked: boolean): void }) {
  const { t } = useLingui();
  return (
    <button
      type="button"
      className={`lock-toggle${locked ? ' locked' : ''}`}
      aria-pressed={locked}
      title={locked ? t`${label} is locked: scans keep it` : t`${label} follows the files`}
      onClick={() => onChange(!locked)}
    >
      <span aria-hidden="true">{locked ? '🔒' : '🔓'}</span>
      <span className="visually-hidden">
        <Trans>Lock {label}</Trans>
      </span>
    </button>
  );
}

function FieldInput({
  spec,
  value,
  suggestions,
  problems,
  onChange,
}: {
  spec: FieldSpec;
  value: unknown;
  suggestions: readonly string[];
  /** A list's problems, one a row. */
  problems?: readonly (string | null)[];
  onChange(v: unknown): void;
}) {
  const id = useId();
  const { i18n } = useLingui();
  const label = i18n._(spec.label);
  if (spec.kind === 'words')
    return <WordsInput label={label} values={(value as string[]) ?? []} suggestions={suggestions} onChange={onChange} />;
  if (spec.kind === 'rows') return <RowsEditor spec={spec.rows!} value={(value as Row[]) ?? []} problems={problems} onChange={onChange} />;
  const text = typeof value === 'string' ? value : '';
  return (
    <>
      <label htmlFor={id}>{label}</label>
      {spec.kind === 'textarea' ? (
        <textarea id={id} rows={4} value={text} onChange={(e) => onChange(e.target.value)} />
      ) : spec.kind === 'select' ? (
        <select id={id} value={text} onChange={(e) => onChange(e.target.value)}>
          <option value="">
            <Trans>Not set</Trans>
          </option>
          {spec.options?.map(([v, l]) => (
            <option key={v} value={v}>
              {i18n._(l)}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          type={spec.kind === 'number' ? 'number' : spec.kind === 'date' ? 'date' : 'text'}
          step={spec.kind === 'number' ? 'any' : undefined}
          value={text}
          required={spec.required}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </>
  );
}

/**
 * "Edit": a dialog with a series' or a book's fields in groups, each with a lock (a field edited here is locked, so
 * scans keep it; unlocking gives it back to the files). Only what changed is sent (PATCH /series|books/{id}).
 */
export function EditMetadataDialog({
  target,
  suggestions,
  onClose,
}: {
  target: EditTarget;
  /** Genres and tags already in the library, offered while typing. */
  suggestions: { genres: readonly string[]; tags: readonly string[] };
  onClose(): void;
}) {
  const dialog = useModal();
  const queryClient = useQueryClient();
  const { t, i18n } = useLingui();
  const groups = target.kind === 'series' ? SERIES_GROUPS : BOOK_GROUPS;
  const specs = groups.flatMap((g) => g.fields);
  const [initial] = useState(() => initialValues(target));
  const [values, setValues] = useState(initial);
  const serverLocks = target.entity.locks as Record<string, true | undefined>;
  const [locks, setLocks] = useState<Record<string, boolean>>(() =>
    Object.fromEntries(specs.map((f) => [f.name, serverLocks[f.name] === true])),
  );
  const [problem, setProblem] = useState<string | null>(null);
  /** List field → its rows' problems, said before saving. */
  const [rowsProblems, setRowsProblems] = useState<Record<string, (string | null)[]>>({});

  const save = useMutation({
    mutationFn: async (body: Record<string, unknown>): Promise<{ write_back: WriteBackReport }> =>
      target.kind === 'series'
        ? ok(api.PATCH('/api/v1/series/{id}', { params: { path: { id: target.entity.id } }, body }))
        : ok(api.PATCH('/api/v1/books/{id}', { params: { path: { id: target.entity.id } }, body })),
    onSuccess: async (saved) => {
      await refreshAfterEdit(queryClient);
      // Written into files (a library that writes ComicInfo.xml): the dialog stays to say so; otherwise done.
      if (!saved.write_back) dialog.current?.close();
    },
  });

  const submit = () => {
    const body: Record<string, unknown> = {};
    const lockChanges: Record<string, boolean> = {};
    const found = Object.fromEntries(
      specs.filter((spec) => spec.rows).map((spec) => [spec.name, rowProblems(spec.rows!, (values[spec.name] as Row[]) ?? [])]),
    );
    setRowsProblems(found);
    const first = Object.values(found)
      .flat()
      .find((p) => p !== null);
    if (first) {
      setProblem(first);
      return;
    }
    for (const spec of specs) {
      const before = toApi(spec, initial[spec.name]);
      const after = toApi(spec, values[spec.name]);
      const locked = locks[spec.name] === true;
      if (!same(before, after)) {
        if (spec.required && after === null) {
          const field = i18n._(spec.label);
          setProblem(t`${field} cannot be empty.`);
          return;
        }
        body[spec.name] = after;
        if (!locked) lockChanges[spec.name] = false;
      } else if (locked !== (serverLocks[spec.name] === true)) lockChanges[spec.name] = locked;
    }
    if (Object.keys(lockChanges).length > 0) body.locks = lockChanges;
    setProblem(null);
    if (Object.keys(body).length === 0) {
      dialog.current?.close();
      return;
    }
    save.mutate(body);
  };

  const name = target.kind === 'series' ? target.entity.metadata.title : target.entity.title;
  return (
    <FormDialog
      dialog={dialog}
      className="edit-metadata"
      heading={<Trans>Edit {name}</Trans>}
      onSubmit={submit}
      onClose={onClose}
      closeLabel={save.data ? <Trans>Close</Trans> : <Trans>Cancel</Trans>}
      actions={
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? <Trans>Saving…</Trans> : <Trans>Save</Trans>}
        </button>
      }
    >
      {save.data?.write_back && <WriteBackNote report={save.data.write_back} />}
      <p className="hint">
        <Trans>A field you change is locked (🔒): scans keep your value. Unlock it to take the files&apos; value back.</Trans>
      </p>
      {groups.map((group) => (
        <fieldset key={group.title.id} className="edit-group">
          <legend>{i18n._(group.title)}</legend>
          {group.fields.map((spec) => (
            <div key={spec.name} className="field edit-field">
              <div className="edit-field-input">
                <FieldInput
                  spec={spec}
                  value={values[spec.name]}
                  suggestions={spec.name === 'genres' ? suggestions.genres : spec.name === 'tags' ? suggestions.tags : []}
                  problems={rowsProblems[spec.name]}
                  onChange={(v) => {
                    setValues((old) => ({ ...old, [spec.name]: v }));
                    if (spec.rows) setRowsProblems((old) => ({ ...old, [spec.name]: [] }));
                    setLocks((old) => ({ ...old, [spec.name]: true }));
                  }}
                />
              </div>
              <LockToggle
                label={i18n._(spec.label)}
                locked={locks[spec.name] === true}
                onChange={(l) => setLocks((old) => ({ ...old, [spec.name]: l }))}
              />
            </div>
          ))}
        </fieldset>
      ))}
      {problem && (
        <p className="error-text" role="alert">
          {problem}
        </p>
      )}
      <ErrorMessage error={save.error} />
      {detailsOf(save.error).length > 0 && (
        <ul className="error-text" aria-label={t`What the server refused`}>
          {detailsOf(save.error).map((d, i) => (
            <li key={i}>
              {fieldInWords(specs, d.field)}: {d.message}
            </li>
          ))}
        </ul>
      )}
    </FormDialog>
  );
}
