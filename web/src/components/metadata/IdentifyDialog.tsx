import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, ok, type components } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { Cover } from '../Cover';
import { ErrorMessage } from '../ErrorView';
import { FormDialog, refreshAfterEdit, useModal } from './dialog';

type Candidate = components['schemas']['MetadataCandidate'];
type Series = components['schemas']['Series'];
type Fetched = Candidate['fields'];

/** The fields a candidate can fill, in the order the diff lists them, with their names on screen. */
const FIELDS: ReadonlyArray<[keyof Fetched, string]> = [
  ['title', 'Title'],
  ['alternate_titles', 'Alternate titles'],
  ['summary', 'Summary'],
  ['publisher', 'Publisher'],
  ['status', 'Status'],
  ['year', 'Start year'],
  ['genres', 'Genres'],
  ['tags', 'Tags'],
  ['age_rating', 'Age rating'],
  ['language', 'Language'],
  ['reading_direction', 'Reading direction'],
  ['authors', 'Authors'],
  ['links', 'Links'],
  ['total_book_count', 'Total books'],
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
        if ('name' in o) return `${String(o.name)} (${String(o.role)})`;
        if ('title' in o) return o.label ? `${String(o.title)} (${String(o.label)})` : String(o.title);
        if ('url' in o) return String(o.label || o.url);
        return JSON.stringify(v);
      })
      .join(', ');
  }
  return String(value);
}

const percent = (score: number) => `${Math.round(score * 100)}%`;

/** Why a candidate scored what it did, in words. */
export function whyText(c: Candidate): string {
  const parts = [`title ${percent(c.why.title)} like "${c.why.matched_title}"`];
  if (c.why.year !== null) parts.push(`year ${percent(c.why.year)}`);
  if (c.why.publisher !== null) parts.push(`publisher ${percent(c.why.publisher)}`);
  if (c.why.count !== null) parts.push(`book count ${percent(c.why.count)}`);
  if (c.why.language !== null) parts.push(`language ${percent(c.why.language)}`);
  return parts.join(' · ');
}

/** One candidate as a card: its cover (through the server), title, year, publisher, source and score. */
export function CandidateCard({ c, onChoose, chosen }: { c: Candidate; onChoose(): void; chosen: boolean }) {
  return (
    <li className={`candidate${chosen ? ' chosen' : ''}`}>
      {c.cover_path ? <Cover src={c.cover_path} alt="" className="candidate-cover" /> : <span className="candidate-cover" />}
      <div className="candidate-body">
        <strong>{c.title}</strong>
        <span className="meta-line">{[c.year, c.publisher, c.provider_label].filter(Boolean).join(' · ')}</span>
        <span className="hint">
          Score {percent(c.score)}: {whyText(c)}
        </span>
        <div className="inline">
          <button type="button" className={chosen ? 'primary' : ''} onClick={onChoose} aria-pressed={chosen}>
            {chosen ? 'Chosen' : 'Choose'}
          </button>
          {c.url && (
            <a href={c.url} target="_blank" rel="noreferrer noopener">
              Open at {c.provider_label}
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
  return (
    <FormDialog
      dialog={dialog}
      className="identify-dialog"
      heading={many ? `Identify series ${index + 1} of ${seriesIds.length}` : 'Identify series'}
      onSubmit={() => undefined}
      onClose={onClose}
      actions={
        many && (
          <button type="button" disabled={index + 1 >= seriesIds.length} onClick={() => setIndex(index + 1)}>
            Next series
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
  if (series.isPending) return <p>Loading the series…</p>;
  const s: Series = series.data;
  const current = s.metadata as unknown as Record<string, unknown>;
  const answer = search.data;
  return (
    <div className="stack identify">
      <p>
        <strong>{s.metadata.title}</strong> <span className="hint">({s.name})</span>
      </p>
      <div className="inline">
        <label className="grow">
          Search for
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
          Search
        </button>
      </div>
      <span id="identify-search-hint" className="hint">
        Another title, or an entry's address (AniList, MangaDex, MangaUpdates, ComicVine, Metron, Open Library).
      </span>
      <ErrorMessage error={search.error} />
      {search.isPending && <p role="status">Asking the metadata sources…</p>}
      {answer && (
        <>
          {answer.problems.map((p) => (
            <p key={p.provider} className="error-text" role="alert">
              {p.message}
            </p>
          ))}
          {answer.candidates.length === 0 && (
            <p className="empty" role="status">
              No source knows "{answer.query.title}". Try another title, or paste the entry's address.
            </p>
          )}
          <ul className="candidates" aria-label="Candidates">
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
            Fields to take from {chosen.provider_label} ({chosen.title})
          </legend>
          <table className="diff">
            <thead>
              <tr>
                <th scope="col">Take</th>
                <th scope="col">Field</th>
                <th scope="col">Now</th>
                <th scope="col">Fetched</th>
              </tr>
            </thead>
            <tbody>
              {FIELDS.filter(([f]) => chosen.fields[f] !== undefined).map(([f, label]) => {
                const locked = s.locks[f] === true;
                return (
                  <tr key={f}>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`Take ${label}`}
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
                      {locked && <span className="hint"> (locked: kept)</span>}
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
            Also the books' titles, release dates and summaries, where {chosen.provider_label} lists issues or volumes (matched by number)
          </label>
          {chosen.cover_url && (
            <label className="check">
              <input type="checkbox" checked={useCover} onChange={(e) => setUseCover(e.target.checked)} />
              Also use {chosen.provider_label}'s cover as the series' cover
            </label>
          )}
          <ErrorMessage error={apply.error ?? undo.error} />
          {apply.data ? (
            <p role="status" className="inline">
              {apply.data.applied.length > 0 || apply.data.books > 0
                ? `Applied: ${[...apply.data.applied, ...(apply.data.books > 0 ? [`${apply.data.books} ${apply.data.books === 1 ? 'book' : 'books'}`] : [])].join(', ')}.`
                : 'Nothing changed.'}
              {apply.data.kept.length > 0 && ` Kept (locked): ${apply.data.kept.join(', ')}.`}
              {apply.data.entry_id && !undo.isSuccess && (
                <button type="button" onClick={() => undo.mutate(apply.data.entry_id!)} disabled={undo.isPending}>
                  Undo
                </button>
              )}
              {undo.isSuccess && ' Undone: the series is as it was.'}
            </p>
          ) : (
            <button type="button" className="primary" disabled={apply.isPending} onClick={() => apply.mutate(chosen)}>
              Apply {fields.size} {fields.size === 1 ? 'field' : 'fields'}
            </button>
          )}
        </fieldset>
      )}
    </div>
  );
}
