import { ErrorMessage } from '../../../components/ErrorView';
import { explainUserError } from '../../../lib/last-admin';

/** A failed change to a user: the last-administrator rule explained in words, any other error as the API said it. */
export function UserError({ error }: { error: unknown }) {
  const explained = explainUserError(error);
  if (explained)
    return (
      <p className="error-text" role="alert">
        {explained}
      </p>
    );
  return <ErrorMessage error={error} />;
}
