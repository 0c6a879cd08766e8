import type { Fit, ReadingMode } from './layout';

/**
 * Reader settings are stored on the server in the `reader_settings` preference, by device class (a phone wants
 * webtoon where a desktop wants double pages) and by series, with "all series" under them. The device class is
 * guessed from the screen, except e-ink, which the reader chooses (no browser says it runs on e-ink) and this
 * browser remembers.
 */
export type DeviceClass = 'phone' | 'tablet' | 'desktop' | 'eink';
export const DEVICE_CLASSES: DeviceClass[] = ['phone', 'tablet', 'desktop', 'eink'];

export interface ReaderSettings {
  mode: ReadingMode;
  fit: Fit;
  spread: 'single' | 'double' | 'auto';
  shift: boolean;
  preload: number;
  gap: number;
  padding: number;
  tap_zones: 'thirds' | 'edges' | 'off';
  eink: boolean;
  grayscale: boolean;
  epub_flow: 'paginated' | 'scrolled';
  epub_theme: 'light' | 'sepia' | 'dark';
  epub_font: 'original' | 'serif' | 'sans-serif' | 'monospace';
  epub_font_size: number;
  epub_line_height: number;
  epub_margin: number;
}

export type PartialSettings = Partial<ReaderSettings>;
export type ByDeviceClass = Partial<Record<DeviceClass, PartialSettings>>;

export interface StoredReaderSettings {
  all_series?: ByDeviceClass;
  series?: Record<string, ByDeviceClass>;
}

export const DEFAULT_SETTINGS: ReaderSettings = {
  mode: 'ltr',
  fit: 'screen',
  spread: 'auto',
  shift: false,
  preload: 3,
  gap: 0,
  padding: 0,
  tap_zones: 'thirds',
  eink: false,
  grayscale: false,
  epub_flow: 'paginated',
  epub_theme: 'light',
  epub_font: 'original',
  epub_font_size: 100,
  epub_line_height: 1.5,
  epub_margin: 6,
};

const EINK_KEY = 'colophon.reader.eink';

export function deviceClass(
  screen: { width: number; height: number; coarse: boolean },
  storage: Pick<Storage, 'getItem'> | null = globalThis.localStorage ?? null,
): DeviceClass {
  if (storage?.getItem(EINK_KEY) === '1') return 'eink';
  const short = Math.min(screen.width, screen.height);
  if (screen.coarse && short < 600) return 'phone';
  if (screen.coarse && short < 1100) return 'tablet';
  return 'desktop';
}

export function rememberEink(on: boolean): void {
  if (on) localStorage.setItem(EINK_KEY, '1');
  else localStorage.removeItem(EINK_KEY);
}

const PAGE_NUMBER_KEY = 'colophon.reader.page-number';

/**
 * Whether the reader shows where it is for a moment after each turn ("12 / 40", an EPUB's percentage): on unless
 * turned off. Kept in this browser, like the e-ink choice: the server's `reader_settings` has a fixed set of
 * fields (src/identity/preferences/registry.ts) and refuses any other.
 */
export function showsPageNumber(storage: Pick<Storage, 'getItem'> | null = globalThis.localStorage ?? null): boolean {
  return storage?.getItem(PAGE_NUMBER_KEY) !== 'off';
}

export function rememberPageNumber(on: boolean, storage: Pick<Storage, 'setItem' | 'removeItem'> = localStorage): void {
  if (on) storage.removeItem(PAGE_NUMBER_KEY);
  else storage.setItem(PAGE_NUMBER_KEY, 'off');
}

const MODES = new Set<string>(['ltr', 'rtl', 'vertical', 'webtoon']);

/**
 * The settings in force, widest first: defaults, the account preferences (reading direction, fit, double page),
 * the series' own reading direction, then this device class's choices for all series, then for this series.
 * E-ink forces paged reading without transitions.
 */
export function resolveSettings(input: {
  stored: StoredReaderSettings | undefined;
  seriesId: string;
  deviceClass: DeviceClass;
  preferences: { reading_direction?: unknown; page_fit?: unknown; double_page?: unknown };
  seriesDirection: string | null | undefined;
}): ReaderSettings {
  const { stored, seriesId, deviceClass: dc, preferences } = input;
  const base: ReaderSettings = { ...DEFAULT_SETTINGS };
  if (typeof preferences.reading_direction === 'string' && MODES.has(preferences.reading_direction))
    base.mode = preferences.reading_direction as ReadingMode;
  if (
    preferences.page_fit === 'screen' ||
    preferences.page_fit === 'width' ||
    preferences.page_fit === 'height' ||
    preferences.page_fit === 'original'
  )
    base.fit = preferences.page_fit;
  if (preferences.double_page === true) base.spread = 'double';
  else if (preferences.double_page === false) base.spread = 'single';
  if (input.seriesDirection && MODES.has(input.seriesDirection)) base.mode = input.seriesDirection as ReadingMode;
  if (dc === 'eink') base.eink = true;
  const merged: ReaderSettings = { ...base, ...(stored?.all_series?.[dc] ?? {}), ...(stored?.series?.[seriesId]?.[dc] ?? {}) };
  if (merged.eink && merged.mode === 'webtoon') merged.mode = 'vertical';
  return merged;
}

/**
 * The stored settings after a change: for this series only, or for all series (which also drops this
 * series' own value of the changed fields, so the change shows here too).
 */
export function withChange(
  stored: StoredReaderSettings | undefined,
  seriesId: string,
  dc: DeviceClass,
  change: PartialSettings,
  scope: 'series' | 'all',
): StoredReaderSettings {
  const next: StoredReaderSettings = { all_series: { ...(stored?.all_series ?? {}) }, series: { ...(stored?.series ?? {}) } };
  if (scope === 'all') {
    next.all_series![dc] = { ...(next.all_series![dc] ?? {}), ...change };
    const own = next.series![seriesId]?.[dc];
    if (own) {
      const rest = Object.fromEntries(Object.entries(own).filter(([k]) => !(k in change)));
      next.series![seriesId] = { ...next.series![seriesId], [dc]: rest };
    }
  } else {
    next.series![seriesId] = { ...(next.series![seriesId] ?? {}), [dc]: { ...(next.series![seriesId]?.[dc] ?? {}), ...change } };
  }
  return next;
}

/** Two pages side by side: chosen, or automatic on a landscape screen wide enough for two portrait pages. */
export function showsDouble(settings: ReaderSettings, screen: { width: number; height: number }): boolean {
  if (settings.mode !== 'ltr' && settings.mode !== 'rtl') return false;
  if (settings.spread === 'double') return true;
  return settings.spread === 'auto' && screen.width > screen.height && screen.width >= 1000;
}
