import { Trans, useLingui } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { api, toApiError } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { ErrorMessage } from '../components/ErrorView';
import { bookLabel } from '../lib/format';
import { useReaderPreferences, type Book, type PageInfo } from './data';
import { EpubEngine, THEMES, type EpubAppearance, type Relocation } from './epub-engine';
import type { FoliateTocItem } from 'foliate-js/epub.js';
import { EndPanel } from './EndPanel';
import { readerKeyTarget } from './keyboard';
import { KeyMap } from './KeyMap';
import { PageFlash, ReaderBar, UnsavedProgressNote } from './ReaderChrome';
import { ReaderSettingsPanel } from './ReaderSettingsPanel';
import { useDeviceClass } from './use-device-class';
import { useFullscreen } from './use-fullscreen';
import { useIncognito } from './use-incognito';
import { useNeighbours } from './use-neighbours';
import { usePageNumber } from './use-page-number';
import { useProgressFlushing, useProgressQueued, useProgressSaver } from './use-progress-saver';
import { resolveSettings, withChange, type PartialSettings } from './settings';

interface SavedLocator {
  locator: { href: string; cfi?: string } | null;
  current_page: number;
  is_completed: boolean;
}

/**
 * Where the reader left the book, asked only when the book says it was started (the reader screen has just read
 * the book afresh), so a first open asks nothing that answers 404. A failed answer throws rather than opening at
 * the start, which the first save would then record over the real position.
 */
async function savedLocator(book: Book): Promise<SavedLocator | null> {
  if (!book.progress) return null;
  const { data, error, response } = await api.GET('/api/v1/books/{id}/progress/locator', { params: { path: { id: book.id } } });
  if (response.status === 404) return null; // cleared on another device meanwhile
  if (!data) throw await toApiError(response, error);
  return data;
}

/** On the book's last page (foliate's fraction stops just short of 1). */
const atEnd = (where: Relocation | null) => where !== null && where.fraction >= 0.995;
const isForwardKey = (e: KeyboardEvent) =>
  e.key === 'ArrowRight' || e.key === 'ArrowDown' || e.key === 'PageDown' || (e.key === ' ' && !e.shiftKey);

/** The EPUB reader: foliate-js lays the book out; this draws the menu, contents, settings, and keeps the position. */

export function EpubReader({ book, seriesTitle }: { book: Book; pages: PageInfo[]; seriesTitle: string }) {
  const { t, i18n } = useLingui();
  const navigate = useNavigate();
  const host = useRef<HTMLDivElement>(null);
  const engine = useRef<EpubEngine | null>(null);
  const prefs = useReaderPreferences();
  const [dc, setDeviceClass] = useDeviceClass();
  const settings = resolveSettings({
    stored: prefs.stored,
    seriesId: book.series_id,
    deviceClass: dc,
    preferences: {},
    seriesDirection: null,
  });
  const appearance: EpubAppearance = {
    flow: settings.eink ? 'paginated' : settings.epub_flow,
    theme: settings.eink ? 'light' : settings.epub_theme,
    font: settings.epub_font,
    fontSize: settings.epub_font_size,
    lineHeight: settings.epub_line_height,
    margin: settings.epub_margin,
  };
  const saved = useQuery({
    queryKey: queryKeys.progressLocator(book.id),
    queryFn: () => savedLocator(book),
    staleTime: Infinity,
    gcTime: 0,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
  const [toc, setToc] = useState<FoliateTocItem[]>([]);
  const [where, setWhere] = useState<Relocation | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [menu, setMenu] = useState(false);
  const [panel, setPanel] = useState<'none' | 'settings' | 'keys' | 'toc' | 'end'>('none');
  const [incognito, setIncognito] = useIncognito();
  const [pageNumber, setPageNumber] = usePageNumber();
  /** Turns so far (not the opening): each shows the position for a moment. */
  const [turns, setTurns] = useState(0);
  const fullscreen = useFullscreen();
  const { previous, next, scope } = useNeighbours(book);
  const saver = useProgressSaver(book.id, incognito);
  const latest = useRef({ appearance, panel, where });
  useLayoutEffect(() => {
    latest.current = { appearance, panel, where };
  });
  const keyHandler = useRef<(e: KeyboardEvent) => void>(() => undefined);

  useEffect(() => {
    if (!host.current || !prefs.loaded || saved.isPending || saved.isError) return;
    let first = true;
    const instance = new EpubEngine(
      host.current,
      book.id,
      (r) => {
        setWhere(r);
        if (first) {
          first = false;
          return;
        }
        setTurns((n) => n + 1);
        saver.moved({ kind: 'locator', locator: { href: r.href, cfi: r.cfi }, percentage: Math.min(1, Math.max(0, r.fraction)) });
      },
      (e) => keyHandler.current(e),
    );
    engine.current = instance;
    const position = saved.data && !saved.data.is_completed ? saved.data : null;
    instance
      .open(latest.current.appearance, { cfi: position?.locator?.cfi, sectionIndex: position ? position.current_page - 1 : undefined })
      .then(setToc, setError);
    return () => {
      instance.destroy();
      engine.current = null;
    };
  }, [book.id, prefs.loaded, saved.isPending, saved.isError, saved.data, saver]);

  const appearanceKey = JSON.stringify(appearance);
  useEffect(() => {
    engine.current?.apply(latest.current.appearance);
  }, [appearanceKey]);

  useProgressFlushing(saver);
  const unsaved = useProgressQueued(saver);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!readerKeyTarget(e)) {
        if (e.key === 'Escape') setPanel('none');
        return;
      }
      const go = engine.current;
      if (e.key === 'Escape') {
        if (latest.current.panel !== 'none') setPanel('none');
        else void navigate({ to: '/books/$bookId', params: { bookId: book.id } });
      } else if (e.key === '?') setPanel('keys');
      else if (e.key === 'f' || e.key === 'F') fullscreen.toggle();
      else if (e.key === 'm' || e.key === 'M') setMenu((m) => !m);
      else if (e.key === 't' || e.key === 'T') setPanel('toc');
      else if (latest.current.panel !== 'none' || !go) return;
      // Going on from the last page opens the end panel, as a tap on the right edge does.
      else if (atEnd(latest.current.where) && isForwardKey(e)) setPanel('end');
      else if (e.key === 'ArrowRight') go.next();
      else if (e.key === 'ArrowLeft') go.previous();
      else if (e.key === ' ' && e.shiftKey) go.backward();
      else if (e.key === ' ' || e.key === 'PageDown' || e.key === 'ArrowDown') go.forward();
      else if (e.key === 'PageUp' || e.key === 'ArrowUp') go.backward();
      else if (e.key === 'Home') go.goToFraction(0);
      else if (e.key === 'End') go.goToFraction(0.9999);
      else return;
      e.preventDefault();
    };
    keyHandler.current = onKey;
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  const change = (patch: PartialSettings, scope: 'series' | 'all') =>
    prefs.save(withChange(prefs.stored, book.series_id, dc, patch, scope));
  // "37%" in the interface language's way (a whole percent, as the slider moves by).
  const percent = i18n.number((where ? Math.round(where.fraction * 100) : 0) / 100, { style: 'percent' });
  const section = where ? where.sectionIndex + 1 : 0;
  const sections = where ? where.sectionCount : 0;
  const chapter = where?.tocLabel ?? t`Section ${section} of ${sections}`;
  const position = where ? t`${percent} · ${chapter}` : t`Opening…`;
  const title = bookLabel(book);
  const theme = THEMES[appearance.theme];

  const failure = error ?? saved.error;
  if (failure) {
    return (
      <div className="reader reader-message">
        <ErrorMessage error={failure} />
        <Link to="/books/$bookId" params={{ bookId: book.id }}>
          <Trans>Back to the book</Trans>
        </Link>
      </div>
    );
  }

  return (
    <div
      className={`reader epub-reader theme-${appearance.theme}${settings.eink ? ' eink' : ''}`}
      style={{ background: theme.background, color: theme.color }}
      data-theme={appearance.theme}
      data-flow={appearance.flow}
    >
      <div ref={host} className="reader-host epub-host" role="region" aria-label={t`${title}, ${position}`} />
      <p className="visually-hidden" role="status" aria-live="polite" data-testid="page-status">
        {position}
      </p>
      <PageFlash text={percent} turn={turns} hidden={!pageNumber || menu} />
      <button type="button" className="epub-turn previous" aria-label={t`Previous page`} onClick={() => engine.current?.previous()} />
      {/* Touch screens: the middle third shows or hides the menu, as in the comic reader (the Menu button says it for keyboards). */}
      <button type="button" className="epub-turn centre" tabIndex={-1} aria-hidden="true" onClick={() => setMenu((m) => !m)} />
      <button type="button" className="epub-menu small" onClick={() => setMenu((m) => !m)} aria-expanded={menu}>
        <Trans>Menu</Trans>
      </button>
      <button
        type="button"
        className="epub-turn next"
        aria-label={t`Next page`}
        onClick={() => {
          if (atEnd(where)) setPanel('end');
          else engine.current?.next();
        }}
      />
      {menu && (
        <>
          <ReaderBar
            book={book}
            seriesTitle={seriesTitle}
            position={position}
            incognito={incognito}
            onIncognito={setIncognito}
            fullscreen={fullscreen}
          >
            <button type="button" className="small" onClick={() => setPanel('toc')}>
              <Trans>Contents</Trans>
            </button>
            <button type="button" className="small" onClick={() => setPanel('settings')}>
              <Trans>Settings</Trans>
            </button>
          </ReaderBar>
          <footer className="reader-bar bottom">
            <label htmlFor="epub-slider" className="visually-hidden">
              <Trans>Position in the book</Trans>
            </label>
            <input
              id="epub-slider"
              type="range"
              min={0}
              max={1000}
              value={Math.round((where?.fraction ?? 0) * 1000)}
              onChange={(e) => engine.current?.goToFraction(Number(e.target.value) / 1000)}
              aria-valuetext={percent}
            />
            <span className="reader-count">{percent}</span>
          </footer>
        </>
      )}
      {panel === 'toc' && (
        <div className="reader-overlay" onPointerDown={(e) => e.target === e.currentTarget && setPanel('none')}>
          <nav className="reader-dialog" role="dialog" aria-modal="true" aria-label={t`Contents`}>
            <div className="reader-dialog-head">
              <h2>
                <Trans>Contents</Trans>
              </h2>
              <button type="button" className="small" onClick={() => setPanel('none')}>
                <Trans>Close</Trans>
              </button>
            </div>
            {toc.length === 0 ? (
              <p>
                <Trans>This book has no table of contents.</Trans>
              </p>
            ) : (
              <TocList items={toc} onPick={(href) => (engine.current?.goTo(href), setPanel('none'))} />
            )}
          </nav>
        </div>
      )}
      {panel === 'settings' && (
        <ReaderSettingsPanel
          kind="epub"
          settings={settings}
          deviceClass={dc}
          onDeviceClass={setDeviceClass}
          pageNumber={pageNumber}
          onPageNumber={setPageNumber}
          onChange={change}
          onClose={() => setPanel('none')}
        />
      )}
      <UnsavedProgressNote queued={unsaved} settingsError={prefs.saveError} />
      {panel === 'keys' && <KeyMap onClose={() => setPanel('none')} />}
      {panel === 'end' && (
        <EndPanel
          at="end"
          book={book}
          previous={previous}
          next={next}
          scope={scope}
          onClose={() => setPanel('none')}
          onOpen={(id) =>
            void navigate({
              to: '/books/$bookId/read',
              params: { bookId: id },
              search: scope.kind === 'read-list' ? { readList: scope.id } : {},
            })
          }
        />
      )}
    </div>
  );
}

function TocList({ items, onPick }: { items: FoliateTocItem[]; onPick(href: string): void }) {
  return (
    <ol className="toc">
      {items.map((item) => (
        <li key={item.href + item.label}>
          <button type="button" className="link" onClick={() => onPick(item.href)}>
            {item.label.trim() || item.href}
          </button>
          {item.subitems && item.subitems.length > 0 && <TocList items={item.subitems} onPick={onPick} />}
        </li>
      ))}
    </ol>
  );
}
