/**
 * `npm run bench -- --match`: how well identification decides, over the labelled names of
 * test/fixtures/calibration/names.json (how they were made: bench/match-names.ts) and the recorded candidate lists
 * they are searched in. Each name is read as the service reads a folder name (folderTitle: title, year, volumes),
 * every candidate of its list scored (decision 044), and the decision taken with the default thresholds. Prints the
 * precision of automatic matches (goal ≥ 0.98), the shares applied, sent to review, with no match, and wrong, per
 * media type and in all; `--list` prints every name with its outcome.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { folderTitle } from '../src/catalog/identify/names.js';
import { decide, DEFAULT_THRESHOLDS, scoreCandidate, type MatchThresholds } from '../src/catalog/identify/score.js';
import type { LabelledName } from './match-names.js';
import { pool } from './match-pools.js';

export type Outcome = 'applied' | 'wrong' | 'review' | 'no_match';

export interface Judged extends LabelledName {
  outcome: Outcome;
  best: { id: string; title: string; score: number } | null;
  runnerUp: number;
  /** Where the labelled entry ranked (1 = best), or null when it is not among the candidates. */
  rank: number | null;
}

export function labelled(): LabelledName[] {
  return JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../test/fixtures/calibration/names.json'), 'utf8')) as LabelledName[];
}

/** One name's outcome, decided as identify_library decides it. */
export function judge(c: LabelledName, thresholds: MatchThresholds = DEFAULT_THRESHOLDS): Judged {
  const folder = folderTitle(c.name);
  const query = { title: folder.title, year: folder.year, count: Math.max(1, folder.volumes ?? 0), qualifiers: folder.qualifiers };
  const scored = pool(c.pool)
    .map((e) => ({ e, score: scoreCandidate(query, e.candidate).score }))
    .sort((a, b) => b.score - a.score);
  const decision = decide(
    scored.map((s) => s.score),
    thresholds,
  );
  const best = scored[0];
  const at = scored.findIndex((s) => s.e.external_id === c.expect);
  const outcome: Outcome =
    decision === 'apply' ? (best?.e.external_id === c.expect ? 'applied' : 'wrong') : decision === 'review' ? 'review' : 'no_match';
  return {
    ...c,
    outcome,
    best: best ? { id: best.e.external_id, title: best.e.title, score: best.score } : null,
    runnerUp: scored[1]?.score ?? 0,
    rank: at < 0 ? null : at + 1,
  };
}

export interface Summary {
  names: number;
  applied: number;
  wrong: number;
  review: number;
  no_match: number;
  /** Correct automatic matches over all automatic matches. */
  precision: number;
  /** Names applied (correctly) over all names. */
  autoShare: number;
  reviewShare: number;
  wrongShare: number;
}

export function summarise(judged: readonly Judged[]): Summary {
  const count = (o: Outcome) => judged.filter((j) => j.outcome === o).length;
  const applied = count('applied');
  const wrong = count('wrong');
  const n = judged.length || 1;
  return {
    names: judged.length,
    applied,
    wrong,
    review: count('review'),
    no_match: count('no_match'),
    precision: applied + wrong === 0 ? 1 : applied / (applied + wrong),
    autoShare: applied / n,
    reviewShare: count('review') / n,
    wrongShare: wrong / n,
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function table(judged: readonly Judged[]): string {
  const rows: Array<[string, Summary]> = [
    ...(['manga', 'comics', 'books'] as const).map((m) => [m, summarise(judged.filter((j) => j.media === m))] as [string, Summary]),
    ['all', summarise(judged)],
  ];
  const lines = [
    '| media | names | precision of automatic matches | applied | to review | no match | wrong |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      ([m, s]) =>
        `| ${m} | ${s.names} | ${pct(s.precision)} | ${pct(s.autoShare)} (${s.applied}) | ${pct(s.reviewShare)} (${s.review}) | ${pct(s.no_match / (s.names || 1))} (${s.no_match}) | ${pct(s.wrongShare)} (${s.wrong}) |`,
    ),
  ];
  return lines.join('\n');
}

export function run(argv: readonly string[]): void {
  const judged = labelled().map((c) => judge(c));
  if (argv.includes('--list'))
    for (const j of judged)
      console.log(
        `${j.outcome.padEnd(8)} ${j.best ? j.best.score.toFixed(3) : '-    '} (next ${j.runnerUp.toFixed(3)}, label rank ${j.rank ?? '-'}) ${j.name}  →  ${j.best?.title ?? ''}`,
      );
  const all = summarise(judged);
  console.log(table(judged));
  console.log(
    `\nprecision ${pct(all.precision)} (goal ≥ 98%), applied automatically ${pct(all.autoShare)} (goal ≥ 70%), ` +
      `to review ${pct(all.reviewShare)}, wrong ${pct(all.wrongShare)}; thresholds auto ${DEFAULT_THRESHOLDS.auto}, margin ${DEFAULT_THRESHOLDS.margin}, review ${DEFAULT_THRESHOLDS.review}`,
  );
}
