import { useLingui } from '@lingui/react';
import { Trans } from '@lingui/react/macro';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, ok } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import { ErrorMessage } from '../../../components/ErrorView';
import { booksSentence, summarySentence, type AccessPreviewBody } from '../../../lib/content-access';

/**
 * What the user sees, counted by the server with the rules every list applies: as saved
 * (GET /users/{id}/access-summary), or, while the form differs from it, as edited (POST /users/access-preview).
 * `access`: the edited access as JSON, once it has stopped changing (`typing` meanwhile); "null" while invalid.
 */
export function AccessPreview({ userId, access, changed, typing }: { userId: string; access: string; changed: boolean; typing: boolean }) {
  // The sentences come from lib/content-access.ts in the active language: a change of language renders them again.
  useLingui();
  const body = JSON.parse(access) as Required<AccessPreviewBody> | null;
  const summary = useQuery({
    queryKey: queryKeys.users.accessSummary(userId),
    queryFn: () => ok(api.GET('/api/v1/users/{id}/access-summary', { params: { path: { id: userId } } })),
    enabled: !changed,
  });
  const preview = useQuery({
    queryKey: queryKeys.users.accessPreview(access),
    queryFn: () => ok(api.POST('/api/v1/users/access-preview', { body: body! })),
    enabled: changed && body !== null,
    // The last counts stay up while the next are asked: the line changes its numbers, it does not blink.
    placeholderData: keepPreviousData,
  });
  const shown = changed ? preview : summary;
  const counts = shown.data;
  const busy = typing || shown.isFetching;
  const sees = counts ? summarySentence(counts) : '';
  const books = counts ? booksSentence(counts) : '';

  return (
    <>
      <p className="access-preview" role="status" aria-busy={busy}>
        {changed && body === null && !typing ? (
          <span className="hint">
            <Trans>Type a valid age to see what this would show.</Trans>
          </span>
        ) : counts ? (
          <>
            <strong>{sees}</strong>{' '}
            <span className="hint">{changed ? <Trans>({books}) with these changes, once saved</Trans> : <>({books})</>}</span>
          </>
        ) : shown.isError ? null : (
          <span className="hint">
            <Trans>Counting…</Trans>
          </span>
        )}
      </p>
      <ErrorMessage error={shown.error} />
    </>
  );
}
