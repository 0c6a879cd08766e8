import { Trans, useLingui } from '@lingui/react/macro';
import { useNavigate, useRouterState } from '@tanstack/react-router';
import { useEffect, useRef, useState, useSyncExternalStore, type FormEvent } from 'react';
import { useDebounced } from '../lib/use-debounced';

/** The header as on a phone (styles.css: 640px and less), where the box is too narrow for the long placeholder. */
const NARROW = '(max-width: 640px)';
const narrowQuery = () => (typeof matchMedia === 'function' ? matchMedia(NARROW) : null);
function useNarrow(): boolean {
  return useSyncExternalStore(
    (changed) => {
      const query = narrowQuery();
      query?.addEventListener('change', changed);
      return () => query?.removeEventListener('change', changed);
    },
    () => narrowQuery()?.matches ?? false,
  );
}

/** The header's search box: results (series and books) open on /search as you type. */
export function HeaderSearch() {
  const { t } = useLingui();
  const navigate = useNavigate();
  const location = useRouterState({ select: (s) => s.location });
  const onSearchPage = location.pathname === '/search';
  const urlQ = onSearchPage ? String((location.search as { q?: string }).q ?? '') : '';
  const [text, setText] = useState(urlQ);
  const settled = useDebounced(text, 300);
  const typed = useRef(false);
  const narrow = useNarrow();

  // Leaving the search page or going back in history: the box shows what the URL says.
  const [shownQ, setShownQ] = useState(urlQ);
  if (shownQ !== urlQ) {
    setShownQ(urlQ);
    if (text.trim() !== urlQ.trim()) setText(urlQ);
  }

  useEffect(() => {
    if (!typed.current) return;
    typed.current = false;
    if (settled.trim() === '') return;
    void navigate({ to: '/search', search: { q: settled.trim() }, replace: onSearchPage });
  }, [settled, navigate, onSearchPage]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (text.trim()) void navigate({ to: '/search', search: { q: text.trim() }, replace: onSearchPage });
  };

  return (
    <form role="search" className="header-search" onSubmit={submit}>
      <label className="visually-hidden" htmlFor="header-search">
        <Trans>Search series and books</Trans>
      </label>
      <input
        id="header-search"
        type="search"
        placeholder={narrow ? t`Search` : t`Search series and books`}
        value={text}
        onChange={(e) => {
          typed.current = true;
          setText(e.target.value);
        }}
      />
    </form>
  );
}
