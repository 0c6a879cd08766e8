import { describe, expect, it } from 'vitest';
import { deviceClass, rememberPageNumber, resolveSettings, showsDouble, showsPageNumber, withChange } from './settings';
import { ProgressSaver, readPending, sendPending, type ProgressBody } from './progress';
import { memoryStorage } from './memory-storage';

const SERIES = '4b2a8c1e-0000-4000-8000-0000000000aa';

describe('reader settings', () => {
  it('"two pages side by side" is honoured both ways; left unset, spreads follow the screen', () => {
    const base = { seriesId: SERIES, deviceClass: 'desktop' as const, stored: {}, seriesDirection: null };
    expect(resolveSettings({ ...base, preferences: { double_page: true } }).spread).toBe('double');
    expect(resolveSettings({ ...base, preferences: { double_page: false } }).spread).toBe('single');
    expect(resolveSettings({ ...base, preferences: {} }).spread).toBe('auto');
  });
  it('the series direction wins over the account preference; stored choices win over both, series over all', () => {
    const base = { seriesId: SERIES, deviceClass: 'desktop' as const, preferences: { reading_direction: 'ltr', double_page: true } };
    expect(resolveSettings({ ...base, stored: {}, seriesDirection: 'rtl' })).toMatchObject({ mode: 'rtl', spread: 'double' });
    expect(resolveSettings({ ...base, stored: { all_series: { desktop: { mode: 'vertical' } } }, seriesDirection: 'rtl' }).mode).toBe(
      'vertical',
    );
    const stored = {
      all_series: { desktop: { mode: 'vertical' as const } },
      series: { [SERIES]: { desktop: { mode: 'webtoon' as const } } },
    };
    expect(resolveSettings({ ...base, stored, seriesDirection: null }).mode).toBe('webtoon');
    expect(resolveSettings({ ...base, deviceClass: 'phone', stored, seriesDirection: null }).mode).toBe('ltr');
  });

  it('e-ink is paged: webtoon becomes vertical paged', () => {
    const s = resolveSettings({
      stored: { series: { [SERIES]: { eink: { mode: 'webtoon' } } } },
      seriesId: SERIES,
      deviceClass: 'eink',
      preferences: {},
      seriesDirection: null,
    });
    expect(s).toMatchObject({ eink: true, mode: 'vertical' });
  });

  it('"apply to all series" also clears this series\' own value of the field', () => {
    const stored = { series: { [SERIES]: { desktop: { mode: 'rtl' as const, fit: 'width' as const } } } };
    const next = withChange(stored, SERIES, 'desktop', { mode: 'ltr' }, 'all');
    expect(next.all_series?.desktop).toEqual({ mode: 'ltr' });
    expect(next.series?.[SERIES]?.desktop).toEqual({ fit: 'width' });
    expect(withChange(stored, SERIES, 'phone', { preload: 5 }, 'series').series?.[SERIES]).toEqual({
      desktop: { mode: 'rtl', fit: 'width' },
      phone: { preload: 5 },
    });
  });

  it('device classes from the screen; e-ink only when chosen', () => {
    expect(deviceClass({ width: 412, height: 915, coarse: true }, null)).toBe('phone');
    expect(deviceClass({ width: 820, height: 1180, coarse: true }, null)).toBe('tablet');
    expect(deviceClass({ width: 1280, height: 720, coarse: false }, null)).toBe('desktop');
    expect(deviceClass({ width: 1280, height: 720, coarse: false }, { getItem: () => '1' })).toBe('eink');
  });

  it('double pages automatically on a wide landscape screen only, never in vertical modes', () => {
    const s = resolveSettings({ stored: {}, seriesId: SERIES, deviceClass: 'desktop', preferences: {}, seriesDirection: null });
    expect(showsDouble(s, { width: 1280, height: 720 })).toBe(true);
    expect(showsDouble(s, { width: 412, height: 915 })).toBe(false);
    expect(showsDouble({ ...s, mode: 'webtoon', spread: 'double' }, { width: 1280, height: 720 })).toBe(false);
  });

  it('the page number after each turn: on until this browser turns it off', () => {
    const storage = memoryStorage();
    expect(showsPageNumber(storage)).toBe(true);
    expect(showsPageNumber(null)).toBe(true);
    rememberPageNumber(false, storage);
    expect(showsPageNumber(storage)).toBe(false);
    rememberPageNumber(true, storage);
    expect(showsPageNumber(storage)).toBe(true);
  });
});

describe('progress saving', () => {
  it('debounces moves into one save of the latest page', async () => {
    const sent: ProgressBody[] = [];
    const saver = new ProgressSaver('b1', { send: async (_id, body) => (sent.push(body), true) }, memoryStorage(), 20);
    saver.moved({ kind: 'page', current_page: 2 });
    saver.moved({ kind: 'page', current_page: 3 });
    await new Promise((r) => setTimeout(r, 60));
    expect(sent).toEqual([{ kind: 'page', current_page: 3 }]);
  });

  it('incognito saves nothing', async () => {
    const sent: ProgressBody[] = [];
    const saver = new ProgressSaver('b1', { send: async (_id, body) => (sent.push(body), true) }, memoryStorage(), 0, true);
    saver.moved({ kind: 'page', current_page: 2 });
    await saver.flush(true);
    expect(sent).toEqual([]);
  });

  it('a save the server did not take is kept and sent when it is back', async () => {
    const storage = memoryStorage();
    let online = false;
    const sent: ProgressBody[] = [];
    const transport = {
      send: async (_id: string, body: ProgressBody) => {
        if (!online) throw new TypeError('Failed to fetch');
        sent.push(body);
        return true;
      },
    };
    const saver = new ProgressSaver('b1', transport, storage, 0);
    saver.moved({ kind: 'page', current_page: 4 });
    await saver.flush(false);
    expect(readPending(storage)).toHaveLength(1);
    online = true;
    expect(await sendPending(transport, storage)).toBe(1);
    expect(sent).toEqual([{ kind: 'page', current_page: 4 }]);
    expect(readPending(storage)).toHaveLength(0);
  });
});
