/**
 * Issue 36's household rules under load: the lists `npm run bench` measures (On Deck, the series list, a filter, a
 * search) as two readers the bench creates, the same in everything but their access rules, so the comparison is of
 * the rules and not of the role:
 *  - the unrestricted reader: `library_access {"all": true}`, no age limit, no labels (its scope is "everything",
 *    the same SQL as an admin's);
 *  - the restricted reader: every rule kind at once, each compiled into the SQL of every list: library access listing
 *    the bench's library (`library_id in (…)`), an age limit of 12 with unrated series shown (the corpus has no
 *    AgeRating, so `age is null or age <= 12` hides nothing but is evaluated on every row), `labels_allow ["family"]`
 *    (every series carries it) and `labels_exclude ["mature"]` (every third series by name carries it): it sees about
 *    two thirds of the series.
 * Both finished the same books (the first book of every other series, as the admin did for On Deck) before the
 * restriction, so the restricted reader has progress in series it no longer sees, which On Deck must leave out.
 * Before any load, the answers are checked: the restricted reader's are non-empty, have fewer series or books than the
 * unrestricted reader's, and hold only series its rules let through; its access summary counts exactly the series the
 * rules should leave. A failed check throws.
 *
 * Each list: the two readers alternately under the same wrk load, unrestricted–restricted then restricted–unrestricted
 * (the machine's load drifts), the better run of each; the ratio is restricted req/s over unrestricted req/s, goal
 * ≥ 1 / ACCESS_SLOWDOWN_LIMIT (restricted no more than 1.2× slower).
 */
import os from 'node:os';
import type { ServerProcess } from './server-process.js';
import { bestOf, runWrk, type Side, type WrkRequest, type WrkResult } from './wrk.js';

/** Restricted must not be slower than this many times unrestricted (issue 36). */
export const ACCESS_SLOWDOWN_LIMIT = 1.2;
const SHARED_LABEL = 'family';
const HIDDEN_LABEL = 'mature';
/** Every this-many-th series by name carries HIDDEN_LABEL. */
const HIDDEN_EVERY = 3;
const MAX_AGE = 12;
const PASSWORD = 'bench-reader-password-1234';

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const loadText = (l: readonly number[]) => l.map((x) => x.toFixed(2)).join(' ');

/** A list the bench measures, as `npm run bench` sends it. */
export interface ListLoad {
  key: string;
  measure: string;
  request: WrkRequest;
}

interface Reader {
  id: string;
  username: string;
  token: string;
}

interface AccessSummary {
  libraries_visible: number;
  libraries_total: number;
  series_visible: number;
  series_total: number;
  books_visible: number;
  books_total: number;
}

export interface AccessSetup {
  unrestricted: Reader;
  restricted: Reader;
  /** The restricted reader's `PATCH /users/{id}` body. */
  rules: Record<string, unknown>;
  series: { total: number; labelledHidden: number; rated: number; visible: number };
  summary: { unrestricted: AccessSummary; restricted: AccessSummary };
  /** Series the restricted reader must see, by id. */
  visible: Set<string>;
}

export interface AccessFigure {
  key: string;
  measure: string;
  /** `total` of each reader's answer (series, or books for On Deck). */
  totals: { unrestricted: number; restricted: number };
  unrestricted: Side;
  restricted: Side;
  /** restricted / unrestricted req/s; null when either side is invalid. */
  rpsRatio: number | null;
  /** restricted / unrestricted latency of the better runs; null when either side is invalid. */
  p50Ratio: number | null;
  p95Ratio: number | null;
  goal: string;
  met?: boolean;
  load: { before: number[]; after: number[] };
}

async function api<T>(server: ServerProcess, token: string | null, method: string, url: string, body?: unknown): Promise<T> {
  const response = await fetch(`${server.base}/api/v1${url}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 400) throw new Error(`${method} ${url}: ${response.status} ${text.slice(0, 500)}`);
  return (text ? JSON.parse(text) : null) as T;
}

interface SeriesItem {
  id: string;
  name: string;
  sharing_labels: string[];
  metadata: { age: number | null };
}

/**
 * Labels the series, creates the two readers, has both finish `finishedBookIds` (for On Deck), then restricts one.
 * Throws when the restricted reader's access summary is not what the rules should give.
 */
export async function setUpReaders(
  server: ServerProcess,
  finishedBookIds: readonly string[],
  log: (line: string) => void,
): Promise<AccessSetup> {
  const libraries = (await server.call<{ data: Array<{ id: string }> }>('GET', '/libraries?pageSize=100')).body.data;
  if (libraries.length === 0) throw new Error('access: no library');
  const series: SeriesItem[] = [];
  for (let page = 1; ; page++) {
    const list = (await server.call<{ data: SeriesItem[] }>('GET', `/series?pageSize=500&page=${page}`)).body;
    series.push(...list.data);
    if (list.data.length < 500) break;
  }
  const visible = new Set<string>();
  let labelledHidden = 0;
  for (const [i, s] of series.entries()) {
    const hidden = i % HIDDEN_EVERY === 0;
    await server.call('PATCH', `/series/${s.id}`, { sharing_labels: hidden ? [SHARED_LABEL, HIDDEN_LABEL] : [SHARED_LABEL] });
    if (hidden) labelledHidden++;
    else if (s.metadata.age === null || s.metadata.age <= MAX_AGE) visible.add(s.id);
  }
  const rated = series.filter((s) => s.metadata.age !== null).length;
  log(
    `access: ${series.length} series labelled "${SHARED_LABEL}", ${labelledHidden} of them also "${HIDDEN_LABEL}"; ${rated} have an age rating`,
  );

  const reader = async (username: string): Promise<Reader> => {
    const user = await api<{ id: string }>(server, server.token, 'POST', '/users', {
      username,
      email: `${username}@example.org`,
      password: PASSWORD,
      role: 'reader',
      library_access: { all: true },
    });
    const login = await api<{ access_token: string }>(server, null, 'POST', '/auth/login', { username, password: PASSWORD });
    return { id: user.id, username, token: login.access_token };
  };
  const unrestricted = await reader('bench-reader');
  const restricted = await reader('bench-restricted');
  // The same progress for both, before the restriction (the restricted reader keeps progress in hidden series).
  for (const r of [unrestricted, restricted]) for (const id of finishedBookIds) await api(server, r.token, 'POST', `/books/${id}/read`);
  const rules = {
    library_access: { all: false, library_ids: libraries.map((l) => l.id) },
    age_restriction: { max_age: MAX_AGE, include_unrated: true },
    labels_allow: [SHARED_LABEL],
    labels_exclude: [HIDDEN_LABEL],
  };
  await server.call('PATCH', `/users/${restricted.id}`, rules);
  const summaryOf = async (r: Reader) => (await server.call<AccessSummary>('GET', `/users/${r.id}/access-summary`)).body;
  const summary = { unrestricted: await summaryOf(unrestricted), restricted: await summaryOf(restricted) };
  const u = summary.unrestricted;
  const s = summary.restricted;
  log(
    `access: readers ${unrestricted.username} (no restriction) and ${restricted.username} (${JSON.stringify(rules)}), each finished ${finishedBookIds.length} books first; ` +
      `series seen ${u.series_visible} and ${s.series_visible} of ${s.series_total}, books ${u.books_visible} and ${s.books_visible} of ${s.books_total}`,
  );
  if (u.series_visible !== u.series_total || u.series_total !== series.length)
    throw new Error(
      `access: the unrestricted reader sees ${u.series_visible} of ${u.series_total} series (${series.length} in the library)`,
    );
  if (s.series_visible !== visible.size || s.series_visible === 0 || s.series_visible >= s.series_total)
    throw new Error(
      `access: the restricted reader sees ${s.series_visible} of ${s.series_total} series; its rules should leave ${visible.size}`,
    );
  return {
    unrestricted,
    restricted,
    rules,
    series: { total: series.length, labelledHidden, rated, visible: visible.size },
    summary,
    visible,
  };
}

/** The answer of `list` as `reader`: its total and the series ids of its first page (series, or books' series). */
async function listAs(
  server: ServerProcess,
  reader: Reader,
  list: ListLoad,
): Promise<{ total: number; seriesIds: string[]; bytes: number }> {
  const response = await fetch(server.base + list.request.path, {
    method: list.request.method ?? 'GET',
    headers: { authorization: `Bearer ${reader.token}`, ...(list.request.body ? { 'content-type': 'application/json' } : {}) },
    body: list.request.body,
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${list.measure} as ${reader.username}: ${response.status} ${text.slice(0, 300)}`);
  const page = JSON.parse(text) as { total?: number; data?: Array<{ id: string; series_id?: string }> };
  if (typeof page.total !== 'number' || !Array.isArray(page.data))
    throw new Error(`${list.measure} as ${reader.username}: not a page: ${text.slice(0, 300)}`);
  return { total: page.total, seriesIds: page.data.map((d) => d.series_id ?? d.id), bytes: Buffer.byteLength(text) };
}

/**
 * Checks both readers' answers to `list` (throws when the restricted one is empty, not smaller, or shows a series
 * its rules hide), then measures them alternately, `rounds` times each.
 */
export async function measureAccess(
  server: ServerProcess,
  setup: AccessSetup,
  list: ListLoad,
  wrk: { threads: number; connections: number; seconds: number; warmupSeconds: number; rounds: number },
  log: (line: string) => void,
): Promise<AccessFigure> {
  const u = await listAs(server, setup.unrestricted, list);
  const r = await listAs(server, setup.restricted, list);
  const pageSize = Number(new URL(list.request.path, server.base).searchParams.get('pageSize') ?? 20);
  const leaked = r.seriesIds.filter((id) => !setup.visible.has(id));
  const problems = [
    r.seriesIds.length === 0 ? 'the restricted reader gets an empty page' : '',
    r.seriesIds.length < Math.min(pageSize, r.total)
      ? `the restricted reader gets ${r.seriesIds.length} of ${r.total} on a first page`
      : '',
    u.seriesIds.length < Math.min(pageSize, u.total)
      ? `the unrestricted reader gets ${u.seriesIds.length} of ${u.total} on a first page`
      : '',
    r.total >= u.total ? `the restricted reader has ${r.total}, not fewer than the unrestricted reader's ${u.total}` : '',
    leaked.length ? `the restricted reader sees ${leaked.length} series its rules hide` : '',
  ].filter(Boolean);
  if (problems.length) throw new Error(`access, ${list.measure}: ${problems.join('; ')}`);
  const load = { before: os.loadavg(), after: [] as number[] };
  log(
    `\n${list.measure} as readers — total ${u.total} unrestricted, ${r.total} restricted (${u.bytes} and ${r.bytes} bytes) — load average ${loadText(load.before)}`,
  );
  const runs: Record<'unrestricted' | 'restricted', WrkResult[]> = { unrestricted: [], restricted: [] };
  const once = async (who: 'unrestricted' | 'restricted') => {
    const reader = setup[who];
    const result = await runWrk({
      base: server.base,
      requests: [list.request],
      headers: { Authorization: `Bearer ${reader.token}` },
      threads: wrk.threads,
      connections: wrk.connections,
      seconds: wrk.seconds,
      warmupSeconds: wrk.warmupSeconds,
    });
    runs[who].push(result);
    log(
      `  ${who.padEnd(12)}: ${result.valid ? `${int(result.rps)} req/s, p50 ${result.latency.p50} ms, p95 ${result.latency.p95} ms, p99 ${result.latency.p99} ms` : `INVALID: ${result.problem}`} (load ${loadText(result.load.before)} → ${loadText(result.load.after)})`,
    );
  };
  for (let round = 0; round < wrk.rounds; round++) {
    // u r, r u, u r, …: neither side always first.
    const order = round % 2 === 0 ? (['unrestricted', 'restricted'] as const) : (['restricted', 'unrestricted'] as const);
    for (const who of order) await once(who);
  }
  load.after = os.loadavg();
  const unrestricted = bestOf(runs.unrestricted);
  const restricted = bestOf(runs.restricted);
  const valid = unrestricted.valid && restricted.valid;
  const rpsRatio = valid ? restricted.rps / unrestricted.rps : null;
  return {
    key: list.key,
    measure: list.measure,
    totals: { unrestricted: u.total, restricted: r.total },
    unrestricted,
    restricted,
    rpsRatio,
    p50Ratio: valid ? restricted.p50 / unrestricted.p50 : null,
    p95Ratio: valid ? restricted.p95 / unrestricted.p95 : null,
    goal: `restricted ≥ 1/${ACCESS_SLOWDOWN_LIMIT} (${(1 / ACCESS_SLOWDOWN_LIMIT).toFixed(2)}) × unrestricted req/s`,
    ...(rpsRatio === null ? {} : { met: rpsRatio >= 1 / ACCESS_SLOWDOWN_LIMIT }),
    load,
  };
}
