import { Trans } from '@lingui/react/macro';
import { useLingui } from '@lingui/react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId } from 'react';
import { api, ok } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { preferencesQuery } from '../api/queries';
import { activateLanguage, closestLanguage, isLanguage, LANGUAGE_CODES, LANGUAGES, type Language } from '../i18n';

/** The account's language: set, or reset to "as the browser" (null). */
const saveLanguage = (language: Language | null) =>
  language
    ? ok(api.PUT('/api/v1/user/preferences/{key}', { params: { path: { key: 'language' } }, body: { value: language } }))
    : ok(api.DELETE('/api/v1/user/preferences/{key}', { params: { path: { key: 'language' } } }));

/** Chosen before signing in (the sign-in page): saved to the account once signed in, so that it follows the person. */
const CHOSEN_SIGNED_OUT = 'colophon.language.chosen';

/**
 * The interface language, in each language's own name. Signed in, the choice is the account's `language`
 * preference ("As the browser" resets it); signed out, this device's until the person signs in.
 */
export function LanguagePicker({ signedIn }: { signedIn: boolean }) {
  const { i18n } = useLingui();
  const id = useId();
  const queryClient = useQueryClient();
  const preferences = useQuery({ ...preferencesQuery, enabled: signedIn });
  const stored = preferences.data?.find((p) => p.key === 'language');
  const save = useMutation({
    mutationFn: saveLanguage,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.preferences }),
  });
  const value = signedIn && stored && stored.is_default ? 'browser' : i18n.locale;
  const choose = async (next: string) => {
    if (next === 'browser') {
      save.mutate(null);
      await activateLanguage(closestLanguage(navigator.languages));
      return;
    }
    if (!isLanguage(next)) return;
    await activateLanguage(next);
    if (signedIn) save.mutate(next);
    else localStorage.setItem(CHOSEN_SIGNED_OUT, next);
  };
  return (
    <div className="language-picker">
      <label htmlFor={id}>
        <Trans>Language</Trans>
      </label>
      <select id={id} value={value} onChange={(e) => void choose(e.target.value)}>
        {signedIn && (
          <option value="browser">
            <Trans>As the browser</Trans>
          </option>
        )}
        {LANGUAGE_CODES.map((code) => (
          <option key={code} value={code} lang={code}>
            {LANGUAGES[code]}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * Signed in: the account's language wins over this device's (a choice made on another device follows the person);
 * a choice made on the sign-in page before signing in becomes the account's.
 */
export function useAccountLanguage(): void {
  const { i18n } = useLingui();
  const queryClient = useQueryClient();
  const preferences = useQuery(preferencesQuery);
  const stored = preferences.data?.find((p) => p.key === 'language');
  useEffect(() => {
    if (!stored) return;
    const chosen = localStorage.getItem(CHOSEN_SIGNED_OUT);
    if (stored.is_default && isLanguage(chosen)) {
      localStorage.removeItem(CHOSEN_SIGNED_OUT);
      void saveLanguage(chosen).then(() => queryClient.invalidateQueries({ queryKey: queryKeys.preferences }));
      return;
    }
    const value = String(stored.value);
    if (!stored.is_default && isLanguage(value) && value !== i18n.locale) void activateLanguage(value);
  }, [stored, i18n.locale, queryClient]);
}
