import { Trans } from '@lingui/react/macro';

/** "Saved", announced, once a setting or preference is stored (and until it is changed again). */
export function SavedNote({ save }: { save: { isSuccess: boolean; isPending: boolean } }) {
  if (!save.isSuccess || save.isPending) return null;
  return (
    <span className="saved" role="status">
      <Trans>Saved</Trans>
    </span>
  );
}
