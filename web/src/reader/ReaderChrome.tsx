import { Link } from '@tanstack/react-router';
import { describeError } from '../api/client';
import { useEffect, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import { bookLabel } from '../lib/format';
import type { Book } from './data';
import { deviceClass, rememberEink, type DeviceClass, type PartialSettings, type ReaderSettings } from './settings';

/** Panels, menus and small hooks shared by the comic and EPUB readers. */

/**
 * Whether a key press is the reader's: not while typing in a field, moving the slider or inside a panel, and
 * not Space or Enter on a focused button or checkbox (they press it). Arrows on a focused checkbox still turn.
 */
export function readerKeyTarget(e: KeyboardEvent): boolean {
  const target = e.target as HTMLElement | null;
  if (!target || !(target instanceof HTMLElement)) return true;
  if (target.isContentEditable || target.closest('textarea, select, [role="dialog"]')) return false;
  if (target instanceof HTMLInputElement && !['checkbox', 'radio', 'button'].includes(target.type)) return false;
  if ((e.key === ' ' || e.key === 'Enter') && target.closest('button, a, input')) return false;
  return true;
}

const subscribeResize = (l: () => void) => {
  window.addEventListener('resize', l);
  return () => window.removeEventListener('resize', l);
};
let lastViewport = { width: 0, height: 0 };
const viewportSnapshot = () => {
  if (lastViewport.width !== window.innerWidth || lastViewport.height !== window.innerHeight)
    lastViewport = { width: window.innerWidth, height: window.innerHeight };
  return lastViewport;
};

export function useViewport(): { width: number; height: number } {
  return useSyncExternalStore(subscribeResize, viewportSnapshot);
}

export function useDeviceClass(): [DeviceClass, (dc: DeviceClass) => void] {
  const viewport = useViewport();
  const [einkChosen, setEinkChosen] = useState(() => localStorage.getItem('bindery.reader.eink') === '1');
  const coarse = typeof matchMedia === 'function' && matchMedia('(pointer: coarse)').matches;
  const detected = deviceClass({ ...viewport, coarse }, null);
  return [
    einkChosen ? 'eink' : detected,
    (dc) => {
      rememberEink(dc === 'eink');
      setEinkChosen(dc === 'eink');
    },
  ];
}

export function useIncognito(): [boolean, (on: boolean) => void] {
  const [on, setOn] = useState(() => sessionStorage.getItem('bindery.reader.incognito') === '1');
  return [
    on,
    (value) => {
      if (value) sessionStorage.setItem('bindery.reader.incognito', '1');
      else sessionStorage.removeItem('bindery.reader.incognito');
      setOn(value);
    },
  ];
}

export function useFullscreen(): { on: boolean; toggle(): void } {
  const [on, setOn] = useState(() => !!document.fullscreenElement);
  useEffect(() => {
    const change = () => setOn(!!document.fullscreenElement);
    document.addEventListener('fullscreenchange', change);
    return () => document.removeEventListener('fullscreenchange', change);
  }, []);
  return {
    on,
    toggle: () => {
      if (document.fullscreenElement) void document.exitFullscreen().catch(() => undefined);
      else void document.documentElement.requestFullscreen?.().catch(() => undefined);
    },
  };
}

function Dialog({ title, onClose, children, className }: { title: string; onClose(): void; children: ReactNode; className?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    // The dialog's main action when it names one (data-autofocus), else its first control.
    (
      ref.current?.querySelector<HTMLElement>('[data-autofocus]') ?? ref.current?.querySelector<HTMLElement>('button, a, input, select')
    )?.focus();
    return () => previous?.focus?.();
  }, []);
  return (
    <div className="reader-overlay" onPointerDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        ref={ref}
        role="dialog"
        aria-modal="true"
        aria-label={title}
        className={`reader-dialog ${className ?? ''}`}
        onKeyDown={(e) => e.key === 'Escape' && onClose()}
      >
        <div className="reader-dialog-head">
          <h2>{title}</h2>
          <button type="button" className="small" onClick={onClose}>
            Close
          </button>
        </div>
        {children}
      </div>
    </div>
  );
}

/**
 * The reader's top bar while the menu is open: back to the book, the series and book title, where the reader
 * is, the incognito switch, then the reader's own buttons (`children`: Contents, Settings…) and full screen.
 */
export function ReaderBar({
  book,
  seriesTitle,
  position,
  incognito,
  onIncognito,
  fullscreen,
  children,
}: {
  book: Book;
  seriesTitle: string;
  position: string;
  incognito: boolean;
  onIncognito(on: boolean): void;
  fullscreen: { on: boolean; toggle(): void };
  children?: ReactNode;
}) {
  return (
    <header className="reader-bar top">
      <Link to="/books/$bookId" params={{ bookId: book.id }} className="button small">
        ← Back
      </Link>
      <div className="reader-title">
        <span className="eyebrow">{seriesTitle}</span>
        <strong>{bookLabel(book)}</strong>
      </div>
      <span className="reader-count">{position}</span>
      <label className="reader-toggle">
        <input type="checkbox" checked={incognito} onChange={(e) => onIncognito(e.target.checked)} /> Incognito
      </label>
      {children}
      <button type="button" className="small" onClick={() => fullscreen.toggle()} aria-pressed={fullscreen.on}>
        Full screen
      </button>
    </header>
  );
}

export const KEYS: Array<[string, string]> = [
  ['→ / ←', 'Next / previous page (swapped in right to left)'],
  ['Space, Page Down', 'Next page (Shift+Space, Page Up: previous)'],
  ['↓ / ↑', 'Scroll (webtoon), next / previous (vertical)'],
  ['Home / End', 'First / last page'],
  ['+ / − / 0', 'Zoom in / out / reset (also Ctrl + wheel)'],
  ['F', 'Full screen'],
  ['M', 'Show or hide the menu'],
  ['Esc', 'Close a panel, or leave the reader'],
  ['?', 'This list'],
];

export function KeyMap({ onClose }: { onClose(): void }) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose}>
      <dl className="key-map">
        {KEYS.map(([k, what]) => (
          <div key={k}>
            <dt>
              <kbd>{k}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
    </Dialog>
  );
}

export function EndPanel({
  at,
  book,
  previous,
  next,
  onClose,
  onOpen,
}: {
  at: 'end' | 'start';
  book: Book;
  previous: Book | undefined;
  next: Book | undefined;
  onClose(): void;
  onOpen(id: string): void;
}) {
  const target = at === 'end' ? next : previous;
  // Paging on past the end (→) goes on to the next book, as Continue does.
  useEffect(() => {
    if (at !== 'end' || !target) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'ArrowRight' || e.altKey || e.ctrlKey || e.metaKey) return;
      e.preventDefault();
      e.stopImmediatePropagation();
      onOpen(target.id);
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [at, target, onOpen]);
  return (
    <Dialog title={at === 'end' ? `End of ${bookLabel(book)}` : `Start of ${bookLabel(book)}`} onClose={onClose} className="end-panel">
      {target ? (
        <p>
          {at === 'end' ? 'Next in the series: ' : 'Previous in the series: '}
          <strong data-testid="neighbour-title">{bookLabel(target)}</strong>
        </p>
      ) : (
        <p>{at === 'end' ? 'This is the last book of the series.' : 'This is the first book of the series.'}</p>
      )}
      <div className="actions">
        {target && (
          <button type="button" className="primary" data-autofocus onClick={() => onOpen(target.id)}>
            {at === 'end' ? `Continue: ${bookLabel(target)}` : `Open ${bookLabel(target)}`}
          </button>
        )}
        <button type="button" onClick={onClose}>
          Stay here
        </button>
      </div>
    </Dialog>
  );
}

type Field = { key: keyof ReaderSettings; label: string } & (
  { kind: 'select'; options: Array<[string, string]> } | { kind: 'number'; min: number; max: number; step?: number } | { kind: 'check' }
);

const COMIC_FIELDS: Field[] = [
  {
    key: 'mode',
    label: 'Reading mode',
    kind: 'select',
    options: [
      ['ltr', 'Left to right'],
      ['rtl', 'Right to left (manga)'],
      ['vertical', 'Vertical, paged'],
      ['webtoon', 'Webtoon (continuous scroll)'],
    ],
  },
  {
    key: 'fit',
    label: 'Fit',
    kind: 'select',
    options: [
      ['screen', 'Screen'],
      ['width', 'Width'],
      ['height', 'Height'],
      ['original', 'Original size'],
    ],
  },
  {
    key: 'spread',
    label: 'Pages side by side',
    kind: 'select',
    options: [
      ['auto', 'On wide screens'],
      ['double', 'Always two'],
      ['single', 'One page'],
    ],
  },
  { key: 'shift', label: 'Shift pairs by one page', kind: 'check' },
  { key: 'preload', label: 'Pages loaded ahead', kind: 'number', min: 0, max: 10 },
  { key: 'gap', label: 'Gap between pages (webtoon, px)', kind: 'number', min: 0, max: 200 },
  { key: 'padding', label: 'Side padding (webtoon, %)', kind: 'number', min: 0, max: 40 },
  {
    key: 'tap_zones',
    label: 'Tap zones',
    kind: 'select',
    options: [
      ['thirds', 'Thirds'],
      ['edges', 'Edges only'],
      ['off', 'Off (menu only)'],
    ],
  },
  { key: 'grayscale', label: 'Grey pages (e-ink)', kind: 'check' },
];

const EPUB_FIELDS: Field[] = [
  {
    key: 'epub_flow',
    label: 'Layout',
    kind: 'select',
    options: [
      ['paginated', 'Pages'],
      ['scrolled', 'Scrolled'],
    ],
  },
  {
    key: 'epub_theme',
    label: 'Theme',
    kind: 'select',
    options: [
      ['light', 'Light'],
      ['sepia', 'Sepia'],
      ['dark', 'Dark'],
    ],
  },
  {
    key: 'epub_font',
    label: 'Font',
    kind: 'select',
    options: [
      ['original', "The book's"],
      ['serif', 'Serif'],
      ['sans-serif', 'Sans serif'],
      ['monospace', 'Monospace'],
    ],
  },
  { key: 'epub_font_size', label: 'Text size (%)', kind: 'number', min: 50, max: 300, step: 10 },
  { key: 'epub_line_height', label: 'Line height', kind: 'number', min: 1, max: 3, step: 0.1 },
  { key: 'epub_margin', label: 'Margins (%)', kind: 'number', min: 0, max: 30 },
];

export function ReaderSettingsPanel({
  kind,
  settings,
  deviceClass: dc,
  onDeviceClass,
  onChange,
  onClose,
}: {
  kind: 'comic' | 'epub';
  settings: ReaderSettings;
  deviceClass: DeviceClass;
  onDeviceClass(dc: DeviceClass): void;
  onChange(patch: PartialSettings, scope: 'series' | 'all'): void;
  onClose(): void;
}) {
  const [scope, setScope] = useState<'series' | 'all'>('series');
  const fields = kind === 'comic' ? COMIC_FIELDS : EPUB_FIELDS;
  const set = (key: keyof ReaderSettings, value: unknown) => onChange({ [key]: value } as PartialSettings, scope);
  return (
    <Dialog title="Reader settings" onClose={onClose} className="settings-panel">
      <fieldset className="scope">
        <legend>Save changes for</legend>
        <label>
          <input type="radio" name="scope" checked={scope === 'series'} onChange={() => setScope('series')} /> This series
        </label>
        <label>
          <input type="radio" name="scope" checked={scope === 'all'} onChange={() => setScope('all')} /> All series (apply to all)
        </label>
      </fieldset>
      <p className="hint">
        Saved for this kind of device ({dc === 'eink' ? 'e-ink' : dc}) on your account: other browsers of the same kind follow.
      </p>
      <label className="reader-field">
        <span>E-ink mode (no animation, paged, high contrast)</span>
        <input type="checkbox" checked={dc === 'eink'} onChange={(e) => onDeviceClass(e.target.checked ? 'eink' : 'desktop')} />
      </label>
      {fields.map((f) => {
        const id = `setting-${f.key}`;
        const value = settings[f.key];
        return (
          <label key={f.key} className="reader-field" htmlFor={id}>
            <span>{f.label}</span>
            {f.kind === 'select' ? (
              <select id={id} value={String(value)} onChange={(e) => set(f.key, e.target.value)}>
                {f.options.map(([v, l]) => (
                  <option key={v} value={v} disabled={settings.eink && f.key === 'mode' && v === 'webtoon'}>
                    {l}
                  </option>
                ))}
              </select>
            ) : f.kind === 'number' ? (
              <input
                id={id}
                type="number"
                min={f.min}
                max={f.max}
                step={f.step ?? 1}
                value={Number(value)}
                onChange={(e) => {
                  const n = Number(e.target.value);
                  if (e.target.value !== '' && n >= f.min && n <= f.max)
                    set(f.key, f.step && f.step < 1 ? Math.round(n * 10) / 10 : Math.round(n));
                }}
              />
            ) : (
              <input id={id} type="checkbox" checked={value === true} onChange={(e) => set(f.key, e.target.checked)} />
            )}
          </label>
        );
      })}
    </Dialog>
  );
}

/** A small note while the reading position could not be saved: it is kept and sent when the server answers again. */
export function UnsavedProgressNote({ queued, settingsError }: { queued: boolean; settingsError?: unknown }) {
  return (
    <p className="reader-unsaved" role="status">
      {queued ? 'Progress not saved yet: it will be sent when the server can be reached.' : ''}
      {queued && settingsError ? <br /> : null}
      {settingsError ? `Reader settings not saved: ${describeError(settingsError)}` : ''}
    </p>
  );
}
