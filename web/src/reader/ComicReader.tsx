import { Trans, useLingui } from '@lingui/react/macro';
import { useNavigate } from '@tanstack/react-router';
import { startTransition, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { bookLabel } from '../lib/format';
import { loadPageImage, opensAsStored, pageUrl, releasePage, useReaderPreferences, type Book, type PageInfo } from './data';
import { ComicEngine, type EngineSettings } from './engine';
import { EndPanel } from './EndPanel';
import { readerKeyTarget } from './keyboard';
import { KeyMap } from './KeyMap';
import { PageFlash, ReaderBar, UnsavedProgressNote } from './ReaderChrome';
import { ReaderSettingsPanel } from './ReaderSettingsPanel';
import { useDeviceClass } from './use-device-class';
import { useFullscreen } from './use-fullscreen';
import { useIncognito } from './use-incognito';
import { usePageNumber } from './use-page-number';
import { useViewport } from './use-viewport';
import { useNeighbours } from './use-neighbours';
import { useProgressFlushing, useProgressQueued, useProgressSaver } from './use-progress-saver';
import { resolveSettings, showsDouble, withChange, type PartialSettings } from './settings';

interface Props {
  book: Book;
  pages: PageInfo[];
  seriesTitle: string;
  seriesDirection: string | null;
  startPage: number;
}

/** The comic reader: the page engine mounted in a full-screen box, with its menu, settings and panels. */
export function ComicReader({ book, pages, seriesTitle, seriesDirection, startPage }: Props) {
  const { t } = useLingui();
  const navigate = useNavigate();
  const host = useRef<HTMLDivElement>(null);
  const engine = useRef<ComicEngine | null>(null);
  const prefs = useReaderPreferences();
  const viewport = useViewport();
  const [dc, setDeviceClass] = useDeviceClass();
  const settings = resolveSettings({
    stored: prefs.stored,
    seriesId: book.series_id,
    deviceClass: dc,
    preferences: prefs.values,
    seriesDirection,
  });
  /** The page shown (0-based; the first of a spread's). */
  const [current, setCurrent] = useState(startPage);
  const [view, setView] = useState<number[]>([startPage]);
  const [menu, setMenu] = useState(false);
  const [panel, setPanel] = useState<'none' | 'settings' | 'keys' | 'end' | 'start'>('none');
  const [incognito, setIncognito] = useIncognito();
  const [pageNumber, setPageNumber] = usePageNumber();
  /** Page turns so far (not the opening): each shows the page number for a moment. */
  const [turns, setTurns] = useState(0);
  const fullscreen = useFullscreen();
  const { previous, next, scope } = useNeighbours(book);

  const saver = useProgressSaver(book.id, incognito);

  const double = showsDouble(settings, viewport);
  const engineSettings: EngineSettings = {
    mode: settings.mode,
    fit: settings.fit,
    double,
    shift: settings.shift,
    preload: settings.preload,
    gap: settings.gap,
    padding: settings.padding,
    tapZones: settings.tap_zones,
  };
  const imageOptions = {
    imageFormat: prefs.values.image_format,
    formatChosen: prefs.formatChosen,
    grayscale: settings.eink && settings.grayscale,
  };
  const latest = useRef({ engineSettings, imageOptions, panel });
  useLayoutEffect(() => {
    latest.current = { engineSettings, imageOptions, panel };
  });

  const settingsKey = JSON.stringify(engineSettings);
  const imagesKey = JSON.stringify(imageOptions);
  const appliedKey = useRef({ settingsKey, imagesKey });

  // The engine lives as long as the book is open; settings changes are handed to it.
  useEffect(() => {
    if (!host.current || !prefs.loaded) return;
    let first = true;
    const instance = new ComicEngine(
      host.current,
      pages,
      latest.current.engineSettings,
      {
        onPage: (index, shown) => {
          const opening = first;
          first = false;
          // The page is already drawn by the engine; the status and slider follow without holding up its frame.
          startTransition(() => {
            setCurrent(index);
            setView(shown);
            if (!opening) setTurns((n) => n + 1);
          });
          if (opening) return;
          saver.moved({ kind: 'page', current_page: index + 1 });
          // The last page completes the book: sent at once, not after the debounce.
          if (index === pages.length - 1) void saver.flush(false);
        },
        onEnd: () => setPanel('end'),
        onStart: () => setPanel('start'),
        onMenu: () => setMenu((m) => !m),
        load: (index, cssWidth, signal, opening) => {
          const options = latest.current.imageOptions;
          const width = cssWidth === null ? null : Math.ceil(cssWidth * (window.devicePixelRatio || 1));
          const stored = opening && opensAsStored(pages[index]!, book.format, width, options);
          const url = stored ? pageUrl(book.id, index + 1, null) : pageUrl(book.id, index + 1, { ...options, width });
          return loadPageImage(url, index, signal);
        },
        release: releasePage,
      },
      startPage,
    );
    engine.current = instance;
    appliedKey.current = {
      settingsKey: JSON.stringify(latest.current.engineSettings),
      imagesKey: JSON.stringify(latest.current.imageOptions),
    };
    return () => {
      instance.destroy();
      engine.current = null;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- one engine per opened book; settings go through update() below
  }, [book.id, prefs.loaded]);

  useEffect(() => {
    const applied = appliedKey.current;
    if (applied.settingsKey === settingsKey && applied.imagesKey === imagesKey) return;
    appliedKey.current = { settingsKey, imagesKey };
    engine.current?.update(latest.current.engineSettings, applied.imagesKey !== imagesKey);
  }, [settingsKey, imagesKey]);

  useProgressFlushing(saver);
  const unsaved = useProgressQueued(saver);

  const close = () => void navigate({ to: '/books/$bookId', params: { bookId: book.id } });

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!readerKeyTarget(e)) {
        if (e.key === 'Escape') setPanel('none');
        return;
      }
      if (e.key === 'Escape') {
        if (latest.current.panel !== 'none') setPanel('none');
        else close();
        e.preventDefault();
        return;
      }
      if (e.key === '?') return void setPanel('keys');
      if ((e.key === 'f' || e.key === 'F') && !e.ctrlKey && !e.metaKey) return void fullscreen.toggle();
      if ((e.key === 'm' || e.key === 'M') && !e.ctrlKey && !e.metaKey) return void setMenu((m) => !m);
      if (latest.current.panel !== 'none') return;
      if (engine.current?.handleKey(e)) e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  const change = (patch: PartialSettings, scope: 'series' | 'all') =>
    prefs.save(withChange(prefs.stored, book.series_id, dc, patch, scope));
  // Named placeholders for the messages: the page (1-based), the first and last of a spread, the page count.
  const count = pages.length;
  const page = current + 1;
  const first = Math.min(...view) + 1;
  const last = Math.max(...view) + 1;
  const spread = view.length > 1;
  const position = spread ? t`Pages ${first}–${last} of ${count}` : t`Page ${page} of ${count}`;
  const shortLabel = `${spread ? `${first}–${last}` : page} / ${count}`;
  const title = bookLabel(book);

  return (
    <div
      className={`reader comic-reader${settings.eink ? ' eink' : ''}${menu ? ' menu-open' : ''}`}
      data-mode={settings.mode}
      data-double={double ? 'true' : 'false'}
    >
      <div ref={host} className="reader-host" aria-label={t`${title}, ${position}`} role="region" />
      {/* Each page turn, said politely by screen readers. */}
      <p className="visually-hidden" role="status" aria-live="polite" data-testid="page-status">
        {spread ? (
          <Trans>
            Pages {first}–{last} of {count}
          </Trans>
        ) : (
          <Trans>
            Page {page} of {count}
          </Trans>
        )}
      </p>
      <PageFlash text={shortLabel} turn={turns} hidden={!pageNumber || menu} />
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
            <button type="button" className="small" onClick={() => setPanel('settings')}>
              <Trans>Settings</Trans>
            </button>
            <button type="button" className="small" onClick={() => setPanel('keys')} aria-label={t`Keyboard shortcuts`}>
              ?
            </button>
          </ReaderBar>
          <footer className="reader-bar bottom">
            <label htmlFor="page-slider" className="visually-hidden">
              <Trans>Page</Trans>
            </label>
            <SliderPreview bookId={book.id} pageCount={pages.length} rtl={settings.mode === 'rtl'} />
            <input
              id="page-slider"
              type="range"
              min={1}
              max={pages.length}
              value={page}
              dir={settings.mode === 'rtl' ? 'rtl' : 'ltr'}
              onChange={(e) => engine.current?.goTo(Number(e.target.value) - 1)}
              aria-valuetext={position}
            />
            <span className="reader-count">{position}</span>
          </footer>
        </>
      )}
      {panel === 'settings' && (
        <ReaderSettingsPanel
          kind="comic"
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
      {(panel === 'end' || panel === 'start') && (
        <EndPanel
          at={panel}
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

/**
 * A thumbnail of the page under the pointer while it moves over the page slider (a small resize of the page,
 * cached by the server like any other).
 */
function SliderPreview({ bookId, pageCount, rtl }: { bookId: string; pageCount: number; rtl: boolean }) {
  const [preview, setPreview] = useState<{ page: number; x: number; url: string | null } | null>(null);
  useEffect(() => {
    const slider = document.getElementById('page-slider');
    if (!slider) return;
    let controller: AbortController | null = null;
    let shown: string | null = null;
    const move = (e: PointerEvent) => {
      const rect = slider.getBoundingClientRect();
      const share = Math.min(1, Math.max(0, (e.clientX - rect.left) / rect.width));
      const page = Math.min(pageCount, Math.max(1, Math.round((rtl ? 1 - share : share) * (pageCount - 1)) + 1));
      setPreview((p) => (p?.page === page ? { ...p, x: e.clientX } : { page, x: e.clientX, url: null }));
      controller?.abort();
      controller = new AbortController();
      void loadPageImage(
        pageUrl(bookId, page, { width: 160, imageFormat: null, formatChosen: false, grayscale: false }),
        page - 1,
        controller.signal,
      ).then(
        (loaded) => {
          if (shown) URL.revokeObjectURL(shown);
          shown = loaded.url;
          setPreview((p) => (p?.page === page ? { ...p, url: loaded.url } : p));
        },
        () => undefined,
      );
    };
    const leave = () => setPreview(null);
    slider.addEventListener('pointermove', move);
    slider.addEventListener('pointerleave', leave);
    return () => {
      controller?.abort();
      if (shown) URL.revokeObjectURL(shown);
      slider.removeEventListener('pointermove', move);
      slider.removeEventListener('pointerleave', leave);
    };
  }, [bookId, pageCount, rtl]);
  if (!preview) return null;
  return (
    <div className="slider-preview" style={{ left: preview.x }} aria-hidden="true" data-testid="slider-preview">
      {preview.url ? <img src={preview.url} alt="" /> : <div className="slider-preview-empty" />}
      <span>{preview.page}</span>
    </div>
  );
}
