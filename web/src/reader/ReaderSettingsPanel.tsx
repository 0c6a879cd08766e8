import type { MessageDescriptor } from '@lingui/core';
import { msg } from '@lingui/core/macro';
import { useLingui } from '@lingui/react';
import { Trans } from '@lingui/react/macro';
import { useState } from 'react';
import { ReaderDialog } from './ReaderDialog';
import type { DeviceClass, PartialSettings, ReaderSettings } from './settings';

type Field = { key: keyof ReaderSettings; label: MessageDescriptor } & (
  | { kind: 'select'; options: Array<[string, MessageDescriptor]> }
  | { kind: 'number'; min: number; max: number; step?: number }
  | { kind: 'check' }
);

const COMIC_FIELDS: Field[] = [
  {
    key: 'mode',
    label: msg`Reading mode`,
    kind: 'select',
    options: [
      ['ltr', msg`Left to right`],
      ['rtl', msg`Right to left (manga)`],
      ['vertical', msg`Vertical, paged`],
      ['webtoon', msg`Webtoon (continuous scroll)`],
    ],
  },
  {
    key: 'fit',
    label: msg`Fit`,
    kind: 'select',
    options: [
      ['screen', msg`Screen`],
      ['width', msg`Width`],
      ['height', msg`Height`],
      ['original', msg`Original size`],
    ],
  },
  {
    key: 'spread',
    label: msg`Pages side by side`,
    kind: 'select',
    options: [
      ['auto', msg`On wide screens`],
      ['double', msg`Always two`],
      ['single', msg`One page`],
    ],
  },
  { key: 'shift', label: msg`Shift pairs by one page`, kind: 'check' },
  { key: 'preload', label: msg`Pages loaded ahead`, kind: 'number', min: 0, max: 10 },
  { key: 'gap', label: msg`Gap between pages (webtoon, px)`, kind: 'number', min: 0, max: 200 },
  { key: 'padding', label: msg`Side padding (webtoon, %)`, kind: 'number', min: 0, max: 40 },
  {
    key: 'tap_zones',
    label: msg`Tap zones`,
    kind: 'select',
    options: [
      ['thirds', msg`Thirds`],
      ['edges', msg`Edges only`],
      ['off', msg`Off (menu only)`],
    ],
  },
  { key: 'grayscale', label: msg`Grey pages (e-ink)`, kind: 'check' },
];

const EPUB_FIELDS: Field[] = [
  {
    key: 'epub_flow',
    label: msg`Layout`,
    kind: 'select',
    options: [
      ['paginated', msg({ message: 'Pages', context: 'EPUB layout' })],
      ['scrolled', msg`Scrolled`],
    ],
  },
  {
    key: 'epub_theme',
    label: msg`Theme`,
    kind: 'select',
    options: [
      ['light', msg`Light`],
      ['sepia', msg`Sepia`],
      ['dark', msg`Dark`],
    ],
  },
  {
    key: 'epub_font',
    label: msg`Font`,
    kind: 'select',
    options: [
      ['original', msg`The book's own font`],
      ['serif', msg`Serif`],
      ['sans-serif', msg`Sans serif`],
      ['monospace', msg`Monospace`],
    ],
  },
  { key: 'epub_font_size', label: msg`Text size (%)`, kind: 'number', min: 50, max: 300, step: 10 },
  { key: 'epub_line_height', label: msg`Line height`, kind: 'number', min: 1, max: 3, step: 0.1 },
  { key: 'epub_margin', label: msg`Margins (%)`, kind: 'number', min: 0, max: 30 },
];

/** The device classes, as the hint names them. */
const DEVICE_LABEL: Record<DeviceClass, MessageDescriptor> = {
  phone: msg`phone`,
  tablet: msg`tablet`,
  desktop: msg`desktop`,
  eink: msg`e-ink`,
};

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
  const { _ } = useLingui();
  const [scope, setScope] = useState<'series' | 'all'>('series');
  const device = _(DEVICE_LABEL[dc]);
  const fields = kind === 'comic' ? COMIC_FIELDS : EPUB_FIELDS;
  const set = (key: keyof ReaderSettings, value: unknown) => onChange({ [key]: value } as PartialSettings, scope);
  return (
    <ReaderDialog title={_(msg`Reader settings`)} onClose={onClose} className="settings-panel">
      <fieldset className="scope">
        <legend>
          <Trans>Save changes for</Trans>
        </legend>
        <label>
          <input type="radio" name="scope" checked={scope === 'series'} onChange={() => setScope('series')} /> <Trans>This series</Trans>
        </label>
        <label>
          <input type="radio" name="scope" checked={scope === 'all'} onChange={() => setScope('all')} />{' '}
          <Trans>All series (apply to all)</Trans>
        </label>
      </fieldset>
      <p className="hint">
        <Trans>Saved for this kind of device ({device}) on your account: other browsers of the same kind follow.</Trans>
      </p>
      <label className="reader-field">
        <span>
          <Trans>E-ink mode (no animation, paged, high contrast)</Trans>
        </span>
        <input type="checkbox" checked={dc === 'eink'} onChange={(e) => onDeviceClass(e.target.checked ? 'eink' : 'desktop')} />
      </label>
      <label className="reader-field">
        <span>
          {kind === 'comic' ? (
            <Trans>Show the page number after each turn (this browser)</Trans>
          ) : (
            <Trans>Show the position after each turn (this browser)</Trans>
          )}
        </span>
        <input type="checkbox" checked={pageNumber} onChange={(e) => onPageNumber(e.target.checked)} />
      </label>
      {fields.map((f) => {
        const id = `setting-${f.key}`;
        const value = settings[f.key];
        return (
          <label key={f.key} className="reader-field" htmlFor={id}>
            <span>{_(f.label)}</span>
            {f.kind === 'select' ? (
              <select id={id} value={String(value)} onChange={(e) => set(f.key, e.target.value)}>
                {f.options.map(([v, l]) => (
                  <option key={v} value={v} disabled={settings.eink && f.key === 'mode' && v === 'webtoon'}>
                    {_(l)}
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
