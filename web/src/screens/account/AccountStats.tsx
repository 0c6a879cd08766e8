import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { api, ok, type components } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { ErrorMessage } from '../../components/ErrorView';
import { dayLabel, formatDuration, labelledIndexes, layoutBars, shares } from '../../lib/charts';
import { formatDate, plural } from '../../lib/format';
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
        <h2 id="stats-heading">Reading statistics</h2>
        <label className="inline-label">
          Period
          <select value={days} onChange={(e) => setDays(Number(e.target.value) as (typeof WINDOWS)[number])}>
            {WINDOWS.map((d) => (
              <option key={d} value={d}>
                Last {d} days
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorMessage error={stats.error} />
      {stats.isPending ? <p>Loading…</p> : stats.data ? <StatsBody stats={stats.data} /> : null}
    </section>
  );
}

type Stats = components['schemas']['ReadingStats'];

function StatsBody({ stats }: { stats: Stats }) {
  const window = stats.days;
  const windowPages = window.reduce((s, d) => s + d.pages_read, 0);
  const windowSeconds = window.reduce((s, d) => s + d.reading_seconds, 0);
  const nothingYet = stats.pages_read === 0 && stats.books_completed === 0 && stats.reading_seconds === 0;
  return (
    <>
      <dl className="stat-tiles">
        <Tile label="Current streak" value={plural(stats.current_streak_days, 'day')} />
        <Tile label="Longest streak" value={plural(stats.longest_streak_days, 'day')} />
        <Tile label="Books finished" value={String(stats.books_completed)} />
        <Tile label="Pages read" value={stats.pages_read.toLocaleString()} />
        <Tile label="Reading time" value={formatDuration(stats.reading_seconds)} />
        <Tile label="Days with reading" value={String(stats.active_days)} />
      </dl>
      {nothingYet && (
        <p className="empty">
          Nothing read yet — open a book from the <Link to="/">home page</Link>; pages and time appear here as you read, on this site or in
          any app using your API keys.
        </p>
      )}
      <div className="chart-grid">
        <figure className="chart card">
          <figcaption>
            Pages per day <span className="hint">({windowPages.toLocaleString()} in the period)</span>
          </figcaption>
          <BarChart
            data={window.map((d) => ({ label: d.date, value: d.pages_read }))}
            describe={(v) => plural(v, 'page')}
            title="Pages read per day"
          />
        </figure>
        <figure className="chart card">
          <figcaption>
            Reading time per day <span className="hint">({formatDuration(windowSeconds)} in the period)</span>
          </figcaption>
          <BarChart
            data={window.map((d) => ({ label: d.date, value: Math.round(d.reading_seconds / 60) }))}
            describe={(v) => `${v} min`}
            title="Minutes read per day"
          />
        </figure>
        <figure className="chart card">
          <figcaption>By device</figcaption>
          {stats.devices.length === 0 ? (
            <p className="hint">No device has reported reading yet.</p>
          ) : (
            <HorizontalBars
              title="Reading time by device"
              rows={shares(stats.devices, (d) => d.reading_seconds || d.pages_read).map(({ item, share }) => ({
                key: item.device_id,
                label: item.name,
                share,
                detail: `${formatDuration(item.reading_seconds)} · ${plural(item.pages_read, 'page')} · last seen ${formatDate(item.last_seen_at)}`,
              }))}
            />
          )}
        </figure>
        <figure className="chart card">
          <figcaption>Top series</figcaption>
          {stats.top_series.length === 0 ? (
            <p className="hint">Series you read appear here.</p>
          ) : (
            <HorizontalBars
              title="Pages read by series"
              rows={shares(stats.top_series, (s) => s.pages_read).map(({ item, share }) => ({
                key: item.series_id,
                label: item.name,
                share,
                detail: `${plural(item.pages_read, 'page')} · ${formatDuration(item.reading_seconds)}`,
                to: item.series_id,
              }))}
            />
          )}
        </figure>
      </div>
      {stats.removed_from_library && (
        <p className="hint">
          {stats.removed_from_library.label}: {plural(stats.removed_from_library.pages_read, 'page')},{' '}
          {formatDuration(stats.removed_from_library.reading_seconds)}, {plural(stats.removed_from_library.books_completed, 'book')}{' '}
          finished.
        </p>
      )}
    </>
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

/** A per-day bar chart in SVG; every bar has a tooltip and the whole chart a text summary for screen readers. */
function BarChart({
  data,
  describe,
  title,
}: {
  data: Array<{ label: string; value: number }>;
  describe(v: number): string;
  title: string;
}) {
  const { bars, max } = layoutBars(data, CHART_W, CHART_H);
  const labelled = labelledIndexes(bars.length, 6);
  const best = data.reduce((b, d) => (d.value > b.value ? d : b), { label: '', value: 0 });
  const summary =
    best.value > 0 ? `${title}: highest ${describe(best.value)} on ${dayLabel(best.label)}.` : `${title}: none in this period.`;
  return (
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
  );
}

function HorizontalBars({
  rows,
  title,
}: {
  title: string;
  rows: Array<{ key: string; label: string; share: number; detail: string; to?: string }>;
}) {
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
              {Math.round(r.share * 100)}% · {r.detail}
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
