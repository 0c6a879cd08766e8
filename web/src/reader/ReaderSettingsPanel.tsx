import { useState } from 'react';
import { ReaderDialog } from './ReaderDialog';
import type { DeviceClass, PartialSettings, ReaderSettings } from './settings';

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

/** The reader's settings, saved for this series or all, for this kind of device. */
export function ReaderSettingsPanel({
  kind,
  settings,
  deviceClass: dc,
  onDeviceClass,
  pageNumber,
  onPageNumber,
  onChange,
  onClose,
}: {
  kind: 'comic' | 'epub';
  settings: ReaderSettings;
  deviceClass: DeviceClass;
  onDeviceClass(dc: DeviceClass): void;
  /** The position for a moment after each turn: this browser's choice, not the account's (see showsPageNumber). */
  pageNumber: boolean;
  onPageNumber(on: boolean): void;
  onChange(patch: PartialSettings, scope: 'series' | 'all'): void;
  onClose(): void;
}) {
  const [scope, setScope] = useState<'series' | 'all'>('series');
  const fields = kind === 'comic' ? COMIC_FIELDS : EPUB_FIELDS;
  const set = (key: keyof ReaderSettings, value: unknown) => onChange({ [key]: value } as PartialSettings, scope);
  return (
    <ReaderDialog title="Reader settings" onClose={onClose} className="settings-panel">
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
      <label className="reader-field">
        <span>{kind === 'comic' ? 'Show the page number after each turn' : 'Show the position after each turn'} (this browser)</span>
        <input type="checkbox" checked={pageNumber} onChange={(e) => onPageNumber(e.target.checked)} />
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
    </ReaderDialog>
  );
}
