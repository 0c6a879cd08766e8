import { type Caller, scopeFor } from '../../identity/index.js';
import type { StatsRepository } from './repository.js';
import type { ReadingStats } from './schemas.js';

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Longest run of consecutive days, and the run that ends today or yesterday (UTC). */
export function streaks(days: readonly string[], today: string): { current: number; longest: number } {
  let longest = 0;
  let run = 0;
  let previous: number | null = null;
  for (const day of days) {
    const ms = Date.parse(`${day}T00:00:00Z`);
    run = previous !== null && ms - previous === DAY_MS ? run + 1 : 1;
    longest = Math.max(longest, run);
    previous = ms;
  }
  const last = days.at(-1);
  const todayMs = Date.parse(`${today}T00:00:00Z`);
  const current = last && (last === today || Date.parse(`${last}T00:00:00Z`) === todayMs - DAY_MS) ? run : 0;
  return { current, longest };
}

const seconds = (ms: number) => Math.round(ms / 1000);

/** Reading statistics of the caller: totals, streaks, days, devices, series, and purged books. */
export class StatsService {
  constructor(private readonly repo: StatsRepository) {}

  async forCaller(caller: Caller, days: number, now = Date.now()): Promise<ReadingStats> {
    const userId = caller.user.id;
    const today = dayOf(now);
    const from = dayOf(now - (days - 1) * DAY_MS);
    const [totals, active, perDay, devices, top, removed, removedTitles] = await Promise.all([
      this.repo.totals(userId),
      this.repo.activeDays(userId),
      this.repo.perDay(userId, from),
      this.repo.perDevice(userId),
      this.repo.topSeries(userId, 10, scopeFor(caller)),
      this.repo.totals(userId, true),
      this.repo.removedTitles(userId, 50),
    ]);
    const streak = streaks(active, today);
    const daily = [];
    for (let ms = Date.parse(`${from}T00:00:00Z`); ms <= Date.parse(`${today}T00:00:00Z`); ms += DAY_MS) {
      const day = dayOf(ms);
      const d = perDay.get(day) ?? { pages_read: 0, reading_ms: 0, books_completed: 0 };
      daily.push({ date: day, pages_read: d.pages_read, reading_seconds: seconds(d.reading_ms), books_completed: d.books_completed });
    }
    return {
      books_completed: totals.books_completed,
      pages_read: totals.pages_read,
      reading_seconds: seconds(totals.reading_ms),
      active_days: active.length,
      current_streak_days: streak.current,
      longest_streak_days: streak.longest,
      days: daily,
      devices: devices.map((d) => ({
        device_id: d.device_id,
        kind: d.kind,
        name: d.name,
        last_seen_at: d.last_seen_at,
        pages_read: d.pages_read,
        reading_seconds: seconds(d.reading_ms),
        books_completed: d.books_completed,
      })),
      top_series: top.map((s) => ({
        series_id: s.series_id,
        name: s.name,
        pages_read: s.pages_read,
        reading_seconds: seconds(s.reading_ms),
        books_completed: s.books_completed,
      })),
      removed_from_library:
        removed.pages_read > 0 || removed.reading_ms > 0 || removed.books_completed > 0 || removedTitles.length > 0
          ? {
              label: 'Removed from library',
              pages_read: removed.pages_read,
              reading_seconds: seconds(removed.reading_ms),
              books_completed: removed.books_completed,
              books: removedTitles,
            }
          : null,
    };
  }
}
