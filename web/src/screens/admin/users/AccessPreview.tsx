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

  return (
    <>
      <p className="access-preview" role="status" aria-busy={busy}>
        {changed && body === null && !typing ? (
          <span className="hint">Type a valid age to see what this would show.</span>
        ) : counts ? (
          <>
            <strong>{summarySentence(counts)}</strong>{' '}
            <span className="hint">
              ({booksSentence(counts)}){changed ? ' with these changes, once saved' : ''}
            </span>
          </>
        ) : shown.isError ? null : (
          <span className="hint">Counting…</span>
        )}
      </p>
      <ErrorMessage error={shown.error} />
    </>
  );
}
