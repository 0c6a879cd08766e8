import { randomBytes } from 'node:crypto';

/**
 * A user's security stamp: every JWT and Komga session is issued with the stamp of its user, and a credential
 * whose stamp differs from the user's current one is refused. A new stamp therefore ends every session of the
 * account at once, on every instance, with no list of sessions to keep: it is given on a password change, when
 * the account is disabled or re-enabled (so re-enabling revives nothing), when its role or permissions change,
 * and on "sign out everywhere". The check rides on the user row the caller resolver reads on every request
 * anyway. API keys and Basic credentials are not sessions: they carry no stamp (revoke a key to end it).
 */
export const newSecurityStamp = (): string => randomBytes(12).toString('base64url');
