import type { I18n, MessageDescriptor } from '@lingui/core';
import { msg } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ok, type components } from '../../api/client';
import { librariesQuery, preferencesQuery } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorView';
import { LanguagePicker } from '../../components/LanguagePicker';
import { SavedNote } from '../../components/SavedNote';

type Preference = components['schemas']['Preference'];

/** Choices for the preferences whose values are a fixed set; anything else is edited by its value's type. */
const CHOICES: Record<string, Array<[string, MessageDescriptor]>> = {
  theme: [
    ['system', msg`Follow the system`],
    ['light', msg({ message: 'Light', context: 'theme' })],
    ['dark', msg({ message: 'Dark', context: 'theme' })],
  ],
  reading_direction: [
    ['ltr', msg`Left to right`],
    ['rtl', msg`Right to left (manga)`],
    ['vertical', msg({ message: 'Vertical', context: 'reading direction' })],
    ['webtoon', msg`Webtoon (continuous)`],
  ],
  page_fit: [
    ['screen', msg`Fit the screen`],
    ['width', msg`Fit the width`],
    ['height', msg`Fit the height`],
    ['original', msg`Original size`],
  ],
  image_format: [
    ['original', msg`As stored`],
    ['webp', msg`WebP (smaller)`],
    ['jpeg', msg`JPEG`],
  ],
};

const LABELS: Record<string, MessageDescriptor> = {
  theme: msg`Theme`,
  reading_direction: msg`Reading direction`,
  page_fit: msg`Page fit`,
  double_page: msg`Two pages side by side`,
  language: msg`Language`,
  default_library_id: msg`Library opened first`,
  books_per_page: msg`Items per page`,
  show_read_books: msg`Show books already read`,
  image_format: msg`Page image format`,
};

/** A preference's name in the active language (`i18n` from `useLingui`); the key itself for one the app does not know. */
const labelOf = (i18n: I18n, key: string) => {
  const label = LABELS[key];
  return label ? i18n._(label) : key.replace(/_/g, ' ');
};

/** What the web app does with a preference, where the server's own description would not say it to a person. */
const DESCRIPTIONS: Record<string, MessageDescriptor> = {
  default_library_id: msg`The library the Libraries link opens. "All libraries" shows every library together.`,
  show_read_books: msg`Untick to hide books you have finished on series pages and in the books grid (a note there shows them again).`,
  double_page: msg`Ticked, two pages side by side; unticked, one page at a time. Until you choose, wide screens show two.`,
};

/**
 * Preferences not offered in the list below: the grid loads as you scroll (no pages to size: books_per_page is for
 * other clients), and the interface language has its own picker (LanguagePicker, at the top of the screen).
 */
const NOT_FOR_THE_WEB_APP = new Set(['books_per_page', 'language']);

/** Account → Preferences: every preference the web app uses, saved as it is changed. */
export function PreferencesScreen() {
  const preferences = useQuery(preferencesQuery);
  if (preferences.error) return <ErrorMessage error={preferences.error} />;
  if (preferences.isPending)
    return (
      <p>
        <Trans>Loading…</Trans>
      </p>
    );
  return (
    <section aria-labelledby="prefs-heading">
      <h2 id="prefs-heading">
        <Trans>Preferences</Trans>
      </h2>
      <p className="hint">
        <Trans>Changes are saved as you make them and follow you to every device.</Trans>
      </p>
      {/* The interface language: the account's `language` preference, or the browser's (LanguagePicker.tsx). */}
      <LanguagePicker signedIn />
      <ul className="settings-list">
        {/* Object-valued preferences (the reader's settings) are edited in the reader itself. */}
        {preferences.data
          .filter((p) => (p.default === null || typeof p.default !== 'object') && !NOT_FOR_THE_WEB_APP.has(p.key))
          .map((p) => (
            <PreferenceRow key={p.key} preference={p} />
          ))}
      </ul>
    </section>
  );
}

function PreferenceRow({ preference }: { preference: Preference }) {
  const { t, i18n } = useLingui();
  const queryClient = useQueryClient();
  const id = `pref-${preference.key}`;
  const save = useMutation({
    mutationFn: (value: unknown) =>
      ok(api.PUT('/api/v1/user/preferences/{key}', { params: { path: { key: preference.key } }, body: { value } })),
    // Shown at once: a controlled checkbox or select would otherwise flip back until the server has answered.
    onMutate: (value) =>
      queryClient.setQueryData(preferencesQuery.queryKey, (old) =>
        old?.map((p) => (p.key === preference.key ? { ...p, value, is_default: false } : p)),
      ),
    onError: () => queryClient.invalidateQueries({ queryKey: preferencesQuery.queryKey }),
    onSuccess: (updated) =>
      queryClient.setQueryData(preferencesQuery.queryKey, (old) => old?.map((p) => (p.key === updated.key ? updated : p))),
  });
  const reset = useMutation({
    mutationFn: () => ok(api.DELETE('/api/v1/user/preferences/{key}', { params: { path: { key: preference.key } } })),
    onSuccess: (updated) =>
      queryClient.setQueryData(preferencesQuery.queryKey, (old) => old?.map((p) => (p.key === updated.key ? updated : p))),
  });
  const label = labelOf(i18n, preference.key);
  const description = DESCRIPTIONS[preference.key];
  return (
    <li className="setting-row">
      <div className="setting-text">
        <label htmlFor={id}>{label}</label>
        <span className="hint" id={`${id}-desc`}>
          {description ? i18n._(description) : preference.description}
        </span>
      </div>
      <div className="setting-control">
        <PreferenceInput id={id} preference={preference} onChange={(v) => save.mutate(v)} />
        {!preference.is_default && (
          <button type="button" className="small" onClick={() => reset.mutate()} aria-label={t`Reset ${label} to its default`}>
            <Trans>Reset</Trans>
          </button>
        )}
        <SavedNote save={save} />
      </div>
      <ErrorMessage error={save.error ?? reset.error} />
    </li>
  );
}

/**
 * The value a control shows: what the user just picked, at once, until the saved value changes. A controlled
 * checkbox or select re-rendered from the query data alone flips back for a moment after each click, until the
 * optimistic update reaches it (TanStack Query notifies on a later task); a quick second action then lands on the
 * old state.
 */
function useShownValue(saved: unknown): [unknown, (value: unknown) => void] {
  const [picked, setPicked] = useState<{ value: unknown; over: unknown } | null>(null);
  // Once the saved value moves (the optimistic update, the server's answer, a refetch after an error), it rules.
  if (picked && !Object.is(picked.over, saved)) setPicked(null);
  const shown = picked && Object.is(picked.over, saved) ? picked.value : saved;
  return [shown, (value) => setPicked({ value, over: saved })];
}

function PreferenceInput({ id, preference, onChange: save }: { id: string; preference: Preference; onChange(value: unknown): void }) {
  const { t, i18n } = useLingui();
  const libraries = useQuery({ ...librariesQuery, enabled: preference.key === 'default_library_id' });
  const [value, setShown] = useShownValue(preference.value);
  const onChange = (next: unknown) => {
    setShown(next);
    save(next);
  };
  const describedBy = `${id}-desc`;
  const choices = CHOICES[preference.key];
  if (choices) {
    return (
      <select id={id} aria-describedby={describedBy} value={String(value)} onChange={(e) => onChange(e.target.value)}>
        {choices.map(([v, label]) => (
          <option key={v} value={v}>
            {i18n._(label)}
          </option>
        ))}
      </select>
    );
  }
  if (preference.key === 'default_library_id') {
    return (
      <select
        id={id}
        aria-describedby={describedBy}
        value={typeof value === 'string' ? value : ''}
        onChange={(e) => onChange(e.target.value || null)}
      >
        <option value="">{t`All libraries`}</option>
        {libraries.data?.data.map((l) => (
          <option key={l.id} value={l.id}>
            {l.name}
          </option>
        ))}
      </select>
    );
  }
  if (typeof preference.default === 'boolean') {
    return (
      <input
        id={id}
        type="checkbox"
        className="checkbox"
        aria-describedby={describedBy}
        checked={value === true}
        onChange={(e) => onChange(e.target.checked)}
      />
    );
  }
  if (typeof preference.default === 'number')
    return <NumberInput id={id} describedBy={describedBy} value={Number(value)} onCommit={onChange} />;
  return <TextInput id={id} describedBy={describedBy} value={String(value ?? '')} onCommit={onChange} />;
}

/**
 * Text and numbers are saved when the field is left or Enter is pressed, not on every keystroke. The field is
 * uncontrolled and keyed by the saved value, so a value saved elsewhere replaces what is shown.
 */
function TextInput({ id, describedBy, value, onCommit }: { id: string; describedBy: string; value: string; onCommit(v: string): void }) {
  const commit = (draft: string) => draft !== value && onCommit(draft);
  return (
    <input
      key={value}
      id={id}
      aria-describedby={describedBy}
      defaultValue={value}
      onBlur={(e) => commit(e.target.value)}
      onKeyDown={(e) => e.key === 'Enter' && commit(e.currentTarget.value)}
    />
  );
}

function NumberInput({ id, describedBy, value, onCommit }: { id: string; describedBy: string; value: number; onCommit(v: number): void }) {
  const commit = (draft: string) => {
    const n = Number(draft);
    if (draft !== '' && Number.isFinite(n) && n !== value) onCommit(n);
  };
  return (
    <input
      key={value}
      id={id}
      type="number"
      inputMode="numeric"
      aria-describedby={describedBy}
      defaultValue={value}
      onBlur={(e) => commit(e.target.value)}
      onKeyDown={(e) => e.key === 'Enter' && commit(e.currentTarget.value)}
    />
  );
}
