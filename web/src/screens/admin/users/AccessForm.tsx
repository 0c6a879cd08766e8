import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { api, ok, type components } from '../../../api/client';
import { librariesQuery } from '../../../api/queries';
import { queryKeys } from '../../../api/query-keys';
import { ErrorMessage } from '../../../components/ErrorView';
import { LabelsInput } from '../../../components/LabelsInput';
import { SavedNote } from '../../../components/SavedNote';
import { accessBody, draftOf, sameAccess, type AccessDraft } from '../../../lib/content-access';
import { useDebounced } from '../../../lib/use-debounced';
import { AccessPreview } from './AccessPreview';
import { UserError } from './UserError';

type User = components['schemas']['User'];

/**
 * A user's access: libraries (all, also future ones, or a list), an age limit, labels allowed and excluded, with
 * what the user would see counted by the server as the form changes (AccessPreview.tsx). Saved with one PATCH.
 */
export function AccessForm({ user }: { user: User }) {
  const { t } = useLingui();
  const queryClient = useQueryClient();
  const libraries = useQuery(librariesQuery);
  const known = libraries.data?.data ?? [];
  const [draft, setDraft] = useState<AccessDraft>(() => draftOf(user, []));
  const body = useMemo(() => accessBody(draft), [draft]);
  const changed = body !== null && !sameAccess(body, user);
  // The preview is asked once the form has stopped changing for a moment (a string: the same access is one key).
  const settled = useDebounced(JSON.stringify(body), 350);
  const save = useMutation({
    mutationFn: () => ok(api.PATCH('/api/v1/users/{id}', { params: { path: { id: user.id } }, body: body! })),
    onSuccess: async (updated) => {
      setDraft(draftOf(updated, []));
      await queryClient.invalidateQueries({ queryKey: queryKeys.users.all });
    },
  });
  const change = (patch: Partial<AccessDraft>) => {
    save.reset();
    setDraft((d) => ({ ...d, ...patch }));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (changed) save.mutate();
  };
  const id = `access-${user.id}`;
  const { username } = user;
  const ageHint = !draft.ageLimited
    ? t`Choose “Only series rated for an age up to…” to set an age.`
    : body === null
      ? t`Type a whole number from 0 to 99.`
      : t`A series is as old as its highest rating (ComicInfo AgeRating: “Everyone” is 0, “Teen” 13, “Mature 17+” 17).`;

  return (
    <form className="access-form" onSubmit={submit} aria-label={t`Access of ${username}`}>
      <div className="access-fields">
        <fieldset>
          <legend>
            <Trans>Libraries</Trans>
          </legend>
          <label className="check">
            <input
              type="checkbox"
              checked={draft.allLibraries}
              onChange={(e) =>
                change(
                  e.target.checked
                    ? { allLibraries: true }
                    : // "Only these" starts from what is seen now: every library ticked, until one is unticked.
                      { allLibraries: false, libraryIds: draft.libraryIds.length > 0 ? draft.libraryIds : known.map((l) => l.id) },
                )
              }
            />
            <Trans>All libraries, also future ones</Trans>
          </label>
          <div
            className="choice-group"
            role="group"
            aria-label={t`Only these libraries`}
            aria-describedby={draft.allLibraries ? `${id}-libraries-why` : undefined}
          >
            {draft.allLibraries && (
              <p className="hint disabled-reason" id={`${id}-libraries-why`}>
                <Trans>Untick “All libraries” to choose among them.</Trans>
              </p>
            )}
            {known.map((l) => (
              <label key={l.id} className="check">
                <input
                  type="checkbox"
                  disabled={draft.allLibraries}
                  checked={draft.allLibraries || draft.libraryIds.includes(l.id)}
                  onChange={(e) =>
                    change({ libraryIds: e.target.checked ? [...draft.libraryIds, l.id] : draft.libraryIds.filter((x) => x !== l.id) })
                  }
                />
                {l.name}
              </label>
            ))}
            {libraries.isPending && (
              <p className="hint">
                <Trans>Loading the libraries…</Trans>
              </p>
            )}
            {libraries.data && known.length === 0 && (
              <p className="hint">
                <Trans>There are no libraries yet.</Trans>
              </p>
            )}
            <ErrorMessage error={libraries.error} />
            {!draft.allLibraries && libraries.data && draft.libraryIds.filter((x) => known.some((l) => l.id === x)).length === 0 && (
              <p className="hint">
                <Trans>None ticked: {username} sees no library at all.</Trans>
              </p>
            )}
          </div>
        </fieldset>

        <fieldset>
          <legend>
            <Trans>Age limit</Trans>
          </legend>
          <label className="choice">
            <input type="radio" name={`${id}-age`} checked={!draft.ageLimited} onChange={() => change({ ageLimited: false })} />
            <Trans>No age limit</Trans>
          </label>
          <label className="choice">
            <input type="radio" name={`${id}-age`} checked={draft.ageLimited} onChange={() => change({ ageLimited: true })} />
            <Trans>Only series rated for an age up to…</Trans>
          </label>
          <div className="stack access-age">
            <label className="inline-label">
              <Trans>Maximum age</Trans>
              <input
                type="number"
                min={0}
                max={99}
                step={1}
                inputMode="numeric"
                className="age-input"
                disabled={!draft.ageLimited}
                value={draft.maxAge}
                aria-invalid={draft.ageLimited && body === null}
                aria-describedby={`${id}-age-hint`}
                onChange={(e) => change({ maxAge: e.target.value })}
              />
            </label>
            <span className="hint" id={`${id}-age-hint`}>
              {ageHint}
            </span>
            <label className="check">
              <input
                type="checkbox"
                disabled={!draft.ageLimited}
                checked={draft.includeUnrated}
                onChange={(e) => change({ includeUnrated: e.target.checked })}
              />
              <Trans>Include series without a rating</Trans>
            </label>
          </div>
        </fieldset>

        <fieldset>
          <legend>
            <Trans>Sharing labels</Trans>
          </legend>
          <LabelsInput
            label={t`Labels allowed`}
            hint={t`Only series carrying one of these are shown. None: no such rule.`}
            values={draft.labelsAllow}
            onChange={(labelsAllow) => change({ labelsAllow })}
          />
          <LabelsInput
            label={t`Labels excluded`}
            hint={t`Series carrying any of these are never shown, even when allowed above.`}
            values={draft.labelsExclude}
            onChange={(labelsExclude) => change({ labelsExclude })}
          />
          <p className="hint">
            <Trans>A series gets its labels on its own page.</Trans>
          </p>
        </fieldset>
      </div>

      <AccessPreview userId={user.id} access={settled} changed={changed} typing={settled !== JSON.stringify(body)} />

      <UserError error={save.error} />
      <div className="inline">
        <button type="submit" className="small primary" disabled={!changed || save.isPending}>
          <Trans>
            Save access<span className="visually-hidden"> of {username}</span>
          </Trans>
        </button>
        {changed && (
          <button type="button" className="small" onClick={() => change(draftOf(user, []))}>
            <Trans>Undo changes</Trans>
          </button>
        )}
        <SavedNote save={save} />
      </div>
    </form>
  );
}
