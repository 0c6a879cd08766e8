import { i18n, type MessageDescriptor } from '@lingui/core';
import { msg, plural, t } from '@lingui/core/macro';
import { Plural, Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, ok, type components } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { Cover } from '../Cover';
import { ErrorMessage } from '../ErrorView';
import { FormDialog, refreshAfterEdit, useModal } from './dialog';
import { roleInWords } from './fields';

type Candidate = components['schemas']['MetadataCandidate'];
type Series = components['schemas']['Series'];
type Fetched = Candidate['fields'];

/** The fields a candidate can fill, in the order the diff lists them, with their names on screen. */
const FIELDS: ReadonlyArray<[keyof Fetched, MessageDescriptor]> = [
  ['title', msg`Title`],
  ['alternate_titles', msg`Alternate titles`],
  ['summary', msg`Summary`],
  ['publisher', msg`Publisher`],
  ['status', msg({ message: 'Status', context: 'series status' })],
  ['year', msg`Start year`],
  ['genres', msg`Genres`],
  ['tags', msg`Tags`],
  ['age_rating', msg`Age rating`],
  ['language', msg`Language`],
  ['reading_direction', msg`Reading direction`],
  ['authors', msg`Authors`],
  ['links', msg`Links`],
  ['total_book_count', msg`Total books`],
];

/** A field's value as one line of text, for the diff. */
export function shown(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) {
    if (value.length === 0) return '—';
    return value
      .map((v: unknown) => {
        if (typeof v !== 'object' || v === null) return String(v);
        const o = v as Record<string, unknown>;
        if ('name' in o) return `${String(o.name)} (${roleInWords(String(o.role))})`;
        if ('title' in o) return o.label ? `${String(o.title)} (${String(o.label)})` : String(o.title);
        if ('url' in o) return String(o.label || o.url);
        return JSON.stringify(v);
      })
      .join(', ');
  }
  return String(value);
}

/** A score as a whole percentage, in the language in use ("87%"). */
const percent = (score: number) => i18n.number(Math.round(score * 100) / 100, { style: 'percent' });

/** Why a candidate scored what it did, in words (in the language in use). */
export function whyText(c: Candidate): string {
  const { why } = c;
  const score = percent(why.title);
  const matched = why.matched_title;
  const parts = [t`title ${score} like "${matched}"`];
  const part = (value: number | null, words: (score: string) => string) => {
    if (value !== null) parts.push(words(percent(value)));
  };
  part(why.year, (score) => t`year ${score}`);
  part(why.publisher, (score) => t`publisher ${score}`);
  part(why.count, (score) => t`book count ${score}`);
  part(why.language, (score) => t`language ${score}`);
  return parts.join(' · ');
}

/** One candidate as a card: its cover (through the server), title, year, publisher, source and score. */
export function CandidateCard({ c, onChoose, chosen }: { c: Candidate; onChoose(): void; chosen: boolean }) {
  const score = percent(c.score);
  const why = whyText(c);
  const provider = c.provider_label;
  return (
    <li className={`candidate${chosen ? ' chosen' : ''}`}>
      {c.cover_path ? <Cover src={c.cover_path} alt="" className="candidate-cover" /> : <span className="candidate-cover" />}
      <div className="candidate-body">
        <strong>{c.title}</strong>
        <span className="meta-line">{[c.year, c.publisher, c.provider_label].filter(Boolean).join(' · ')}</span>
        <span className="hint">
          <Trans>
            Score {score}: {why}
          </Trans>
        </span>
        <div className="inline">
          <button type="button" className={chosen ? 'primary' : ''} onClick={onChoose} aria-pressed={chosen}>
            {chosen ? <Trans>Chosen</Trans> : <Trans>Choose</Trans>}
          </button>
          {c.url && (
            <a href={c.url} target="_blank" rel="noreferrer noopener">
              <Trans>Open at {provider}</Trans>
            </a>
          )}
        </div>
      </div>
    </li>
  );
}

/**
 * Identify: one series (or a selection, one after another) matched with an online database's entry. Search by its
 * name or another, or paste an entry's address; pick a candidate; tick the fields to take; Apply, with Undo after.
 */
export function IdentifyDialog({ seriesIds, onClose }: { seriesIds: string[]; onClose(): void }) {
  const dialog = useModal();
  const [index, setIndex] = useState(0);
  const id = seriesIds[index]!;
  const many = seriesIds.length > 1;
  const number = index + 1;
  const total = seriesIds.length;
  return (
    <FormDialog
      dialog={dialog}
      className="identify-dialog"
      heading={
        many ? (
          <Trans>
            Identify series {number} of {total}
          </Trans>
        ) : (
          <Trans>Identify series</Trans>
        )
      }
      onSubmit={() => undefined}
      onClose={onClose}
      actions={
        many && (
          <button type="button" disabled={index + 1 >= seriesIds.length} onClick={() => setIndex(index + 1)}>
            <Trans>Next series</Trans>
          </button>
        )
      }
    >
      <IdentifyOne key={id} seriesId={id} onApplied={() => undefined} />
    </FormDialog>
  );
}

/** The body of the dialog for one series; the review page uses it too. */
export function IdentifyOne({ seriesId, onApplied }: { seriesId: string; onApplied(): void }) {
  const queryClient = useQueryClient();
  const { t, i18n } = useLingui();
  const series = useQuery({
    queryKey: queryKeys.series.detail(seriesId),
    queryFn: () => ok(api.GET('/api/v1/series/{id}', { params: { path: { id: seriesId } } })),
  });
  const [query, setQuery] = useState('');
  const search = useMutation({
    mutationFn: (q: string) =>
      ok(api.POST('/api/v1/series/{id}/identify', { params: { path: { id: seriesId } }, body: q.trim() ? { query: q.trim() } : {} })),
  });
  const [chosen, setChosen] = useState<Candidate | null>(null);
  const [fields, setFields] = useState<Set<string>>(new Set());
  const [useCover, setUseCover] = useState(false);
  const [withBooks, setWithBooks] = useState(true);
  const apply = useMutation({
    mutationFn: async (c: Candidate) => {
      const result = await ok(
        api.POST('/api/v1/series/{id}/identify/apply', {
          params: { path: { id: seriesId } },
          body: { provider: c.provider, external_id: c.external_id, fields: [...fields, 'external_ids', ...(withBooks ? ['books'] : [])] },
        }),
      );
      if (useCover && c.cover_url)
        await ok(
          api.POST('/api/v1/series/{id}/identify/cover', {
            params: { path: { id: seriesId } },
            body: { provider: c.provider, external_id: c.external_id },
          }),
        );
      return result;
    },
    onSuccess: async () => {
      await refreshAfterEdit(queryClient);
      onApplied();
    },
  });
  const undo = useMutation({
    mutationFn: (entryId: string) => ok(api.POST('/api/v1/history/{entry_id}/undo', { params: { path: { entry_id: entryId } } })),
    onSuccess: () => refreshAfterEdit(queryClient),
  });
  // The series' own name is searched at once: most of the time the first candidate is the one.
  const { mutate } = search;
  useEffect(() => mutate(''), [mutate]);
  const choose = (c: Candidate) => {
    setChosen(c);
    setFields(new Set(FIELDS.filter(([f]) => c.fields[f] !== undefined).map(([f]) => f)));
    setUseCover(false);
    apply.reset();
  };

  if (series.error) return <ErrorMessage error={series.error} />;
  if (series.isPending)
    return (
      <p>
        <Trans>Loading the series…</Trans>
      </p>
    );
  const s: Series = series.data;
  const current = s.metadata as unknown as Record<string, unknown>;
  const answer = search.data;
  const asked = answer?.query.title;
  const provider = chosen?.provider_label;
  const chosenTitle = chosen?.title;
  const fieldCount = fields.size;
  const applied = apply.data;
  const books = applied?.books ?? 0;
  const bookWords = books > 0 ? [plural(books, { one: '# book', other: '# books' })] : [];
  const appliedList = applied ? [...applied.applied, ...bookWords].join(', ') : '';
  const keptList = applied ? applied.kept.join(', ') : '';
  return (
    <div className="stack identify">
      <p>
        <strong>{s.metadata.title}</strong> <span className="hint">({s.name})</span>
      </p>
      <div className="inline">
        <label className="grow">
          <Trans>Search for</Trans>
          <input
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                search.mutate(query);
              }
            }}
            placeholder={answer?.query.title ?? s.metadata.title}
            aria-describedby="identify-search-hint"
          />
        </label>
        <button type="button" onClick={() => search.mutate(query)} disabled={search.isPending}>
          <Trans>Search</Trans>
        </button>
      </div>
      <span id="identify-search-hint" className="hint">
        <Trans>Another title, or an entry&apos;s address (AniList, MangaDex, MangaUpdates, ComicVine, Metron, Open Library).</Trans>
      </span>
      <ErrorMessage error={search.error} />
      {search.isPending && (
        <p role="status">
          <Trans>Asking the metadata sources…</Trans>
        </p>
      )}
      {answer && (
        <>
          {answer.problems.map((p) => (
            <p key={p.provider} className="error-text" role="alert">
              {p.message}
            </p>
          ))}
          {answer.candidates.length === 0 && (
            <p className="empty" role="status">
              <Trans>No source knows &quot;{asked}&quot;. Try another title, or paste the entry&apos;s address.</Trans>
            </p>
          )}
          <ul className="candidates" aria-label={t`Candidates`}>
            {answer.candidates.map((c) => (
              <CandidateCard
                key={`${c.provider}:${c.external_id}`}
                c={c}
                chosen={chosen?.provider === c.provider && chosen.external_id === c.external_id}
                onChoose={() => choose(c)}
              />
            ))}
          </ul>
        </>
      )}
      {chosen && (
        <fieldset className="stack">
          <legend>
            <Trans>
              Fields to take from {provider} ({chosenTitle})
            </Trans>
          </legend>
          <table className="diff">
            <thead>
              <tr>
                <th scope="col">
                  <Trans>Take</Trans>
                </th>
                <th scope="col">
                  <Trans>Field</Trans>
                </th>
                <th scope="col">
                  <Trans>Now</Trans>
                </th>
                <th scope="col">
                  <Trans>Fetched</Trans>
                </th>
              </tr>
            </thead>
            <tbody>
              {FIELDS.filter(([f]) => chosen.fields[f] !== undefined).map(([f, name]) => {
                const locked = s.locks[f] === true;
                const label = i18n._(name);
                return (
                  <tr key={f}>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={t`Take ${label}`}
                        checked={fields.has(f) && !locked}
                        disabled={locked}
                        onChange={(e) => {
                          const next = new Set(fields);
                          if (e.target.checked) next.add(f);
                          else next.delete(f);
                          setFields(next);
                        }}
                      />
                    </td>
                    <th scope="row">
                      {label}
                      {locked && (
                        <span className="hint">
                          {' '}
                          <Trans>(locked: kept)</Trans>
                        </span>
                      )}
                    </th>
                    <td className="diff-now">{shown(current[f])}</td>
                    <td className="diff-fetched">{shown(chosen.fields[f])}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <label className="check">
            <input type="checkbox" checked={withBooks} onChange={(e) => setWithBooks(e.target.checked)} />
            <Trans>
              Also the books&apos; titles, release dates and summaries, where {provider} lists issues or volumes (matched by number)
            </Trans>
          </label>
          {chosen.cover_url && (
            <label className="check">
              <input type="checkbox" checked={useCover} onChange={(e) => setUseCover(e.target.checked)} />
              <Trans>Also use {provider}&apos;s cover as the series&apos; cover</Trans>
            </label>
          )}
          <ErrorMessage error={apply.error ?? undo.error} />
          {apply.data ? (
            <p role="status" className="inline">
              {appliedList ? t`Applied: ${appliedList}.` : t`Nothing changed.`}
              {keptList && ` ${t`Kept (locked): ${keptList}.`}`}
              {apply.data.entry_id && !undo.isSuccess && (
                <button type="button" onClick={() => undo.mutate(apply.data.entry_id!)} disabled={undo.isPending}>
                  <Trans>Undo</Trans>
                </button>
              )}
              {undo.isSuccess && ` ${t`Undone: the series is as it was.`}`}
            </p>
          ) : (
            <button type="button" className="primary" disabled={apply.isPending} onClick={() => apply.mutate(chosen)}>
              <Plural value={fieldCount} one="Apply # field" other="Apply # fields" />
            </button>
          )}
        </fieldset>
      )}
    </div>
  );
}
