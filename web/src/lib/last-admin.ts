import { t } from '@lingui/core/macro';
import { ApiError } from '../api/client';

/**
 * The last-admin rule, said in words: the server answers 409 when deleting, demoting or disabling a user would
 * leave no active administrator. Other errors are shown as they are (null).
 */
export function explainUserError(error: unknown): string | null {
  if (error instanceof ApiError && error.status === 409 && /last administrator/i.test(error.message)) {
    // The server's own words first (they stay as it said them), then what to do, in the interface language.
    const { message } = error;
    return t`${message}. Colophon always keeps at least one active administrator: make another user an administrator first, then try again.`;
  }
  return null;
}
