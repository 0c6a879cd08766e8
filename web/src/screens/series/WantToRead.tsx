import { Trans } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { wantToReadQuery } from '../../api/queries';
import { ErrorMessage } from '../../components/ErrorView';

/**
 * The series page's "Want to read" switch (PUT / DELETE /me/want-to-read/{series_id}): a toggle button whose pressed
 * state is whether the series is on the home page's "Want to read" shelf. While the shelf is unknown it is disabled,
 * never shown as "not on it".
 */
export function WantToReadToggle({ seriesId }: { seriesId: string }) {
  const queryClient = useQueryClient();
  const shelf = useQuery(wantToReadQuery);
  const toggle = useMutation({
    mutationFn: (want: boolean) =>
      ok(
        want
          ? api.PUT('/api/v1/me/want-to-read/{series_id}', { params: { path: { series_id: seriesId } } })
          : api.DELETE('/api/v1/me/want-to-read/{series_id}', { params: { path: { series_id: seriesId } } }),
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.shelves.all }),
  });
  const onShelf = toggle.isPending ? toggle.variables : shelf.data?.data.some((s) => s.id === seriesId);
  return (
    <>
      <button
        type="button"
        aria-pressed={onShelf === true}
        className={onShelf ? 'toggle-on' : undefined}
        disabled={!shelf.data || toggle.isPending}
        onClick={() => toggle.mutate(!onShelf)}
      >
        {onShelf ? '★ ' : '☆ '}
        <Trans>Want to read</Trans>
      </button>
      <ErrorMessage error={toggle.error ?? shelf.error} />
    </>
  );
}
