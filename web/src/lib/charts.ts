import { i18n } from '@lingui/core';
import { t } from '@lingui/core/macro';

/** Pure helpers behind the reading-statistics charts (hand-drawn SVG bars; no chart library needed). */

export interface Bar {
  label: string;
  value: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * A "nice" upper bound for the value axis (1, 2 or 5 times a power of ten), so gridlines land on round
 * numbers; at least 1 so an all-zero series still draws an axis.
 */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

/** Lays out a vertical bar chart in a `width` × `height` box; each bar gets an equal slot with a gap. */
export function layoutBars(
  values: Array<{ label: string; value: number }>,
  width: number,
  height: number,
  gapRatio = 0.2,
): { bars: Bar[]; max: number } {
  const max = niceMax(Math.max(0, ...values.map((v) => v.value)));
  const slot = values.length > 0 ? width / values.length : width;
  const gap = slot * gapRatio;
  const bars = values.map((v, i) => {
    const h = (Math.max(0, v.value) / max) * height;
    return { label: v.label, value: v.value, x: i * slot + gap / 2, y: height - h, width: slot - gap, height: h };
  });
  return { bars, max };
}

/**
 * "1 h 05 min", "12 min", "40 s": reading time in words a person reads at a glance, in the active language
 * (the messages use the global i18n, so call it during a render).
 */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return t({ message: `${s} s`, comment: 'A duration in seconds (abbreviated unit)' });
  const minutes = Math.floor(s / 60);
  if (minutes < 60) return t({ message: `${minutes} min`, comment: 'A duration in minutes (abbreviated unit)' });
  const hours = Math.floor(minutes / 60);
  const paddedMinutes = String(minutes % 60).padStart(2, '0');
  return t({ message: `${hours} h ${paddedMinutes} min`, comment: 'A duration in hours and minutes (abbreviated units)' });
}

/** "Mon 3" style day labels for the per-day axis, in the active language; the dates are UTC days (YYYY-MM-DD). */
export function dayLabel(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return date;
  return i18n.date(d, { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

/** Which bars get an axis label: about `count` of them, evenly spaced, always including the last (today). */
export function labelledIndexes(length: number, count: number): Set<number> {
  const result = new Set<number>();
  if (length === 0) return result;
  const step = Math.max(1, Math.ceil(length / Math.max(1, count)));
  for (let i = length - 1; i >= 0; i -= step) result.add(i);
  return result;
}

/** Shares of a whole for the per-device breakdown, largest first, as fractions summing to 1 (or all 0). */
export function shares<T>(items: T[], valueOf: (item: T) => number): Array<{ item: T; value: number; share: number }> {
  const total = items.reduce((sum, item) => sum + Math.max(0, valueOf(item)), 0);
  return items
    .map((item) => ({ item, value: valueOf(item), share: total > 0 ? Math.max(0, valueOf(item)) / total : 0 }))
    .sort((a, b) => b.value - a.value);
}
