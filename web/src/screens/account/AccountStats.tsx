import { plural } from '@lingui/core/macro';
import { Plural, Trans, useLingui } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { api, ok, type components } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { ErrorMessage } from '../../components/ErrorView';
import { dayLabel, formatDuration, labelledIndexes, layoutBars, shares } from '../../lib/charts';
import { formatDate } from '../../lib/format';
import '../../admin.css';

const WINDOWS = [7, 30, 90, 365] as const;

/** Reading statistics as charts: pages and time per day, streaks, devices and top series. */
export function StatsScreen() {
  const [days, setDays] = useState<(typeof WINDOWS)[number]>(30);
  const stats = useQuery({
    queryKey: queryKeys.readingStats(days),
    queryFn: () => ok(api.GET('/api/v1/reading-stats', { params: { query: { days } } })),
  });

  return (
    <section aria-labelledby="stats-heading">
      <div className="section-head">
        <h2 id="stats-heading">
          <Trans>Reading statistics</Trans>
        </h2>
        <label className="inline-label">
          <Trans>Period</Trans>
          <select value={days} onChange={(e) => setDays(Number(e.target.value) as (typeof WINDOWS)[number])}>
            {WINDOWS.map((d) => (
              <option key={d} value={d}>
                <Plural value={d} one="Last # day" other="Last # days" />
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorMessage error={stats.error} />
      {stats.isPending ? (
        <p>
          <Trans>Loading…</Trans>
        </p>
      ) : stats.data ? (
        <StatsBody stats={stats.data} />
      ) : null}
    </section>
  );
}

type Stats = components['schemas']['ReadingStats'];

function StatsBody({ stats }: { stats: Stats }) {
  const { t, i18n } = useLingui();
  const window = stats.days;
  const windowPages = window.reduce((s, d) => s + d.pages_read, 0);
  const windowSeconds = window.reduce((s, d) => s + d.reading_seconds, 0);
  const nothingYet = stats.pages_read === 0 && stats.books_completed === 0 && stats.reading_seconds === 0;
  const pagesInPeriod = i18n.number(windowPages);
  const timeInPeriod = formatDuration(windowSeconds);
  const pages = (n: number) => plural(n, { one: '# page', other: '# pages' });
  const removed = stats.removed_from_library;
  const { current_streak_days: currentStreak, longest_streak_days: longestStreak } = stats;
  return (
    <>
      <dl className="stat-tiles">
        <Tile label={t`Current streak`} value={plural(currentStreak, { one: '# day', other: '# days' })} />
        <Tile label={t`Longest streak`} value={plural(longestStreak, { one: '# day', other: '# days' })} />
        <Tile label={t`Books finished`} value={i18n.number(stats.books_completed)} />
        <Tile label={t`Pages read`} value={i18n.number(stats.pages_read)} />
        <Tile label={t`Reading time`} value={formatDuration(stats.reading_seconds)} />
        <Tile label={t`Days with reading`} value={i18n.number(stats.active_days)} />
      </dl>
      {nothingYet && (
        <p className="empty">
          <Trans>
            Nothing read yet — open a book from the <Link to="/">home page</Link>; pages and time appear here as you read, on this site or
            in any app using your API keys.
          </Trans>
        </p>
      )}
      <div className="chart-grid">
        <figure className="chart card">
          <figcaption>
            <Trans>
              Pages per day <span className="hint">({pagesInPeriod} in the period)</span>
            </Trans>
          </figcaption>
          <BarChart
            data={window.map((d) => ({ label: d.date, value: d.pages_read }))}
            describe={pages}
            title={t`Pages read per day`}
            valueHeading={t`Pages read`}
          />
        </figure>
        <figure className="chart card">
          <figcaption>
            <Trans>
              Reading time per day <span className="hint">({timeInPeriod} in the period)</span>
            </Trans>
          </figcaption>
          <BarChart
            data={window.map((d) => ({ label: d.date, value: Math.round(d.reading_seconds / 60) }))}
            describe={(minutes) => t({ message: `${minutes} min`, comment: 'Minutes of reading (abbreviated unit)' })}
            title={t`Minutes read per day`}
            valueHeading={t`Minutes read`}
          />
        </figure>
        <figure className="chart card">
          <figcaption>
            <Trans>By device</Trans>
          </figcaption>
          {stats.devices.length === 0 ? (
            <p className="hint">
              <Trans>No device has reported reading yet.</Trans>
            </p>
          ) : (
            <HorizontalBars
              title={t`Reading time by device`}
              rows={shares(stats.devices, (d) => d.reading_seconds || d.pages_read).map(({ item, share }) => {
                const duration = formatDuration(item.reading_seconds);
                const devicePages = pages(item.pages_read);
                const lastSeen = formatDate(item.last_seen_at);
                return {
                  key: item.device_id,
                  label: item.name,
                  share,
                  detail: t`${duration} · ${devicePages} · last seen ${lastSeen}`,
                };
              })}
            />
          )}
        </figure>
        <figure className="chart card">
          <figcaption>
            <Trans>Top series</Trans>
          </figcaption>
          {stats.top_series.length === 0 ? (
            <p className="hint">
              <Trans>Series you read appear here.</Trans>
            </p>
          ) : (
            <HorizontalBars
              title={t`Pages read by series`}
              rows={shares(stats.top_series, (s) => s.pages_read).map(({ item, share }) => ({
                key: item.series_id,
                label: item.name,
                share,
                detail: `${pages(item.pages_read)} · ${formatDuration(item.reading_seconds)}`,
                to: item.series_id,
              }))}
            />
          )}
        </figure>
      </div>
      {removed && <RemovedFromLibrary removed={removed} />}
    </>
  );
}

/** What was read in books no longer in any library the person sees (the server's `label` names them). */
function RemovedFromLibrary({ removed }: { removed: NonNullable<Stats['removed_from_library']> }) {
  // Rendered by StatsBody, which follows the active language: the core `plural` macro reads it.
  const { label, pages_read: pagesRead, books_completed: booksFinished } = removed;
  const removedPages = plural(pagesRead, { one: '# page', other: '# pages' });
  const removedTime = formatDuration(removed.reading_seconds);
  const removedBooks = plural(booksFinished, { one: '# book', other: '# books' });
  return (
    <p className="hint">
      <Trans>
        {label}: {removedPages}, {removedTime}, {removedBooks} finished.
      </Trans>
    </p>
  );
}

function Tile({ label, value }: { label: string; value: string }) {
  return (
    <div className="stat-tile">
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}

const CHART_W = 600;
const CHART_H = 160;
const AXIS_H = 26;

/**
 * A per-day bar chart in SVG; every bar has a tooltip, the whole chart a text summary, and a table beside it (visually
 * hidden) gives screen readers every day's number.
 */
function BarChart({
  data,
  describe,
  title,
  valueHeading,
}: {
  data: Array<{ label: string; value: number }>;
  describe(v: number): string;
  title: string;
  valueHeading: string;
}) {
  const { t } = useLingui();
  const { bars, max } = layoutBars(data, CHART_W, CHART_H);
  const labelled = labelledIndexes(bars.length, 6);
  const best = data.reduce((b, d) => (d.value > b.value ? d : b), { label: '', value: 0 });
  const highest = describe(best.value);
  const bestDay = dayLabel(best.label);
  const summary = best.value > 0 ? t`${title}: highest ${highest} on ${bestDay}.` : t`${title}: none in this period.`;
  return (
    <>
      <svg viewBox={`0 0 ${CHART_W} ${CHART_H + AXIS_H}`} className="bar-chart" role="img" aria-label={summary}>
        <line x1="0" x2={CHART_W} y1={CHART_H} y2={CHART_H} className="axis" />
        <line x1="0" x2={CHART_W} y1={0} y2={0} className="gridline" />
        <text x="4" y="16" className="axis-label">
          {describe(max)}
        </text>
        {bars.map((bar, i) => (
          <g key={bar.label}>
            <rect x={bar.x} y={bar.y} width={Math.max(1, bar.width)} height={bar.height} className="bar" rx="2">
              <title>{`${dayLabel(bar.label)}: ${describe(bar.value)}`}</title>
            </rect>
            {labelled.has(i) && (
              // The first and last labels end at the chart's edges, where a centred one would be cut ("Nov 2" for "Nov 27").
              <text
                x={i === 0 ? bar.x : i === bars.length - 1 ? bar.x + bar.width : bar.x + bar.width / 2}
                y={CHART_H + 20}
                textAnchor={i === 0 ? 'start' : i === bars.length - 1 ? 'end' : 'middle'}
                className="axis-label"
              >
                {dayLabel(bar.label)}
              </text>
            )}
          </g>
        ))}
      </svg>
      {/* The chart's numbers as a table, for screen readers (the wrapper hides it: a table ignores a 1px width). */}
      <div className="visually-hidden">
        <table>
          <caption>{title}</caption>
          <thead>
            <tr>
              <th scope="col">
                <Trans>Day</Trans>
              </th>
              <th scope="col">{valueHeading}</th>
            </tr>
          </thead>
          <tbody>
            {data.map((d) => (
              <tr key={d.label}>
                <th scope="row">{dayLabel(d.label)}</th>
                <td>{describe(d.value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function HorizontalBars({
  rows,
  title,
}: {
  title: string;
  rows: Array<{ key: string; label: string; share: number; detail: string; to?: string }>;
}) {
  const { i18n } = useLingui();
  return (
    <ul className="hbars" aria-label={title}>
      {rows.map((r) => (
        <li key={r.key}>
          <div className="hbar-text">
            {r.to ? (
              <Link to="/series/$seriesId" params={{ seriesId: r.to }}>
                {r.label}
              </Link>
            ) : (
              <strong>{r.label}</strong>
            )}
            <span className="hint">
              {i18n.number(r.share, { style: 'percent', maximumFractionDigits: 0 })} · {r.detail}
            </span>
          </div>
          <div className="hbar-track" aria-hidden="true">
            <div className="hbar-fill" style={{ width: `${Math.max(1, r.share * 100)}%` }} />
          </div>
        </li>
      ))}
    </ul>
  );
}
