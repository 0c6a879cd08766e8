import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { Series } from '../../components/Cards';
import { ErrorMessage } from '../../components/ErrorView';
import { LabelsInput } from '../../components/LabelsInput';
import { SavedNote } from '../../components/SavedNote';

/**
 * A series' sharing labels, for users who may edit series (`series-write`): folded under one line, each label
 * added or removed saved at once (PATCH /series/{id}). Users whose access allows or excludes a label see or miss
 * the series by it. Others are shown nothing: labels are how an administrator sorts what each user sees.
 */
export function SharingLabels({ series }: { series: Series }) {
  const queryClient = useQueryClient();
  const { t } = useLingui();
  const save = useMutation({
    mutationFn: (labels: string[]) =>
      ok(api.PATCH('/api/v1/series/{id}', { params: { path: { id: series.id } }, body: { sharing_labels: labels } })),
    onSuccess: async (updated) => {
      queryClient.setQueryData(queryKeys.series.detail(series.id), updated);
      await queryClient.invalidateQueries({ queryKey: queryKeys.series.all });
    },
  });
  const labels = save.isPending && save.variables ? save.variables : series.sharing_labels;
  const list = labels.join(', ');
  return (
    <details className="sharing-labels">
      <summary>{labels.length > 0 ? <Trans>Sharing labels: {list}</Trans> : <Trans>Sharing labels (none)</Trans>}</summary>
      <LabelsInput
        label={t`Sharing labels of this series`}
        hint={t`Users whose access (Administration → Users) allows or excludes one of these see or miss this series by it.`}
        values={labels}
        onChange={(next) => save.mutate(next)}
      />
      <SavedNote save={save} />
      <ErrorMessage error={save.error} />
    </details>
  );
}
