import type { I18n, MessageDescriptor } from '@lingui/core';
import { msg } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useRef, useState, type KeyboardEvent } from 'react';
import { api, ok, type components } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { Cover } from '../../components/Cover';
import { ErrorMessage } from '../../components/ErrorView';
import { refreshAfterEdit } from '../../components/metadata/dialog';
import { IdentifyDialog, whyText } from '../../components/metadata/IdentifyDialog';

type Review = components['schemas']['MetadataReview'];
type Status = Review['status'];

const TABS: ReadonlyArray<[Status, MessageDescriptor]> = [
  ['pending', msg`To review`],
  ['no_match', msg`No match`],
  ['accepted', msg`Accepted`],
  ['rejected', msg`Rejected`],
];

/** "87%", in the active language's way of writing a percentage. */
const percent = (i18n: I18n, score: number) => i18n.number(score, { style: 'percent', maximumFractionDigits: 0 });

/**
 * The review queue: series whose best match was plausible but not sure (or nothing matched), for a person to accept,
 * pick another, search or reject. Made for long queues: ↑/↓ (or j/k) move, A accepts, R rejects, I opens Identify.
 */
export function MetadataReviewScreen() {
  const { t, i18n } = useLingui();
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<Status>('pending');
  const reviews = useQuery({
    queryKey: [...queryKeys.metadataReview, status],
    queryFn: () => ok(api.GET('/api/v1/metadata/review', { params: { query: { status, pageSize: 200 } } })),
    placeholderData: keepPreviousData,
  });
  const refresh = () => Promise.all([queryClient.invalidateQueries({ queryKey: queryKeys.metadataReview }), refreshAfterEdit(queryClient)]);
  const accept = useMutation({
    mutationFn: (id: string) => ok(api.POST('/api/v1/metadata/review/{id}/accept', { params: { path: { id } }, body: {} })),
    onSuccess: refresh,
  });
  const reject = useMutation({
    mutationFn: (id: string) => ok(api.POST('/api/v1/metadata/review/{id}/reject', { params: { path: { id } } })),
    onSuccess: refresh,
  });
  const [identify, setIdentify] = useState<string | null>(null);
  const rows = useRef<Array<HTMLLIElement | null>>([]);
  const data = reviews.data?.data ?? [];
  const counts = reviews.data?.counts;
  const decidable = status === 'pending' || status === 'no_match';

  const onKey = (e: KeyboardEvent<HTMLLIElement>, r: Review, i: number) => {
    if (e.target !== e.currentTarget) return;
    const move = (to: number) => {
      e.preventDefault();
      rows.current[Math.max(0, Math.min(data.length - 1, to))]?.focus();
    };
    if (e.key === 'ArrowDown' || e.key === 'j') move(i + 1);
    else if (e.key === 'ArrowUp' || e.key === 'k') move(i - 1);
    else if (decidable && (e.key === 'a' || e.key === 'A') && r.candidates.length > 0) accept.mutate(r.id);
    else if (decidable && (e.key === 'r' || e.key === 'R')) reject.mutate(r.id);
    else if (e.key === 'i' || e.key === 'I') setIdentify(r.series_id);
  };

  return (
    <section aria-labelledby="review-heading">
      <div className="section-head">
        <h2 id="review-heading">
          <Trans>Metadata review</Trans>
        </h2>
      </div>
      <p className="hint">
        <Trans comment="A, R and I (and the arrows) are the keys pressed: keep them as they are.">
          Series whose best match was not sure enough to apply by itself. Keys: ↑ ↓ move, A accept the best candidate, R reject, I identify
          (search, pick another).
        </Trans>
      </p>
      <nav aria-label={t`Review status`} className="section-tabs">
        {TABS.map(([value, label]) => (
          <button key={value} type="button" aria-pressed={status === value} onClick={() => setStatus(value)}>
            {i18n._(label)}
            {counts ? ` (${counts[value]})` : ''}
          </button>
        ))}
      </nav>
      <ErrorMessage error={reviews.error ?? accept.error ?? reject.error} />
      {reviews.isPending && (
        <p role="status">
          <Trans>Loading the review queue…</Trans>
        </p>
      )}
      {reviews.data && data.length === 0 && (
        <p className="empty" role="status">
          {status === 'pending' ? (
            <Trans>
              Nothing to review. Identify a library (Administration → Libraries) to fill this queue with the matches that were not sure.
            </Trans>
          ) : (
            <Trans>No series here.</Trans>
          )}
        </p>
      )}
      <ol className="review-list" aria-label={t`Series to review`}>
        {data.map((r, i) => {
          const best = r.candidates[0];
          const { series_title: seriesTitle, query } = r;
          const bestTitle = best?.title ?? '';
          const score = best ? percent(i18n, best.score) : '';
          const details = best ? [best.year, best.publisher, best.provider_label].filter(Boolean).join(' · ') : '';
          const why = best ? whyText(best) : '';
          const rowLabel = best ? t`${seriesTitle}: best ${bestTitle}, ${score}` : t`${seriesTitle}: no candidate`;
          return (
            <li
              key={r.id}
              ref={(el) => {
                rows.current[i] = el;
              }}
              tabIndex={0}
              className="review-row card"
              aria-label={rowLabel}
              onKeyDown={(e) => onKey(e, r, i)}
            >
              {best?.cover_path ? <Cover src={best.cover_path} alt="" className="candidate-cover" /> : <span className="candidate-cover" />}
              <div className="stack">
                <Link to="/series/$seriesId" params={{ seriesId: r.series_id }}>
                  {r.series_title}
                </Link>
                <span className="hint">
                  <Trans>Searched for "{query}"</Trans>
                </span>
                {best ? (
                  <span>
                    <Trans>
                      Best: <strong>{bestTitle}</strong> {details} — score {score} ({why})
                    </Trans>
                  </span>
                ) : (
                  <span>
                    <Trans>No candidate.</Trans>
                  </span>
                )}
                <div className="inline">
                  {decidable && best && (
                    <button type="button" className="primary" disabled={accept.isPending} onClick={() => accept.mutate(r.id)}>
                      <Trans>Accept</Trans>
                    </button>
                  )}
                  <button type="button" onClick={() => setIdentify(r.series_id)}>
                    {best ? <Trans>Pick another…</Trans> : <Trans>Search…</Trans>}
                  </button>
                  {decidable && (
                    <button type="button" disabled={reject.isPending} onClick={() => reject.mutate(r.id)}>
                      <Trans>Reject</Trans>
                    </button>
                  )}
                </div>
              </div>
            </li>
          );
        })}
      </ol>
      {identify && (
        <IdentifyDialog
          seriesIds={[identify]}
          onClose={() => {
            setIdentify(null);
            void refresh();
          }}
        />
      )}
    </section>
  );
}
