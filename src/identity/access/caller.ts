import type { ContentScope } from './content-access.js';
import type { Permission } from './permissions.js';

export interface CallerUser {
  id: string;
  username: string;
  email: string;
  role: string;
}

/** Who is calling, resolved once per request; services receive this, never the request. */
export interface Caller {
  user: CallerUser;
  permissions: ReadonlySet<Permission>;
  /** Set when the caller authenticated with an API key (directly, as Bearer, or as Basic `api`:key). */
  apiKeyId: string | null;
  /** JWT id when the caller used a token (logout revokes it). */
  tokenId: string | null;
  tokenExpiresAt: Date | null;
  method: 'jwt' | 'api_key' | 'basic' | 'session' | 'proxy';
  isAdmin: boolean;
  /** The user's security stamp as read for this request: a session opened now is bound to it. */
  securityStamp: string;
  /** What the user may see (access/scope.ts): the user's, whatever the credential (an admin's key sees everything). */
  scope: ContentScope;
}
