/**
 * The signed-in session: the access token from /auth/login (or /setup/initialize), kept in localStorage so a
 * reload stays signed in, with its expiry. Screens subscribe to learn about sign-in, sign-out and expiry.
 */
export interface Session {
  token: string;
  expiresAt: number;
  username: string;
}

const KEY = 'colophon.session';
type Listener = (session: Session | null, reason: 'signed-in' | 'signed-out' | 'expired') => void;
const listeners = new Set<Listener>();
/** A session this browser had has ended (expired, or its token was refused): sign-in says so, a first visit does not. */
let ended = false;

function read(): Session | null {
  try {
    const raw = localStorage.getItem(KEY);
    if (!raw) return null;
    const session = JSON.parse(raw) as Session;
    if (session.expiresAt > Date.now()) return session;
    ended = true;
    return null;
  } catch {
    return null;
  }
}

/**
 * The token again in a cookie that only the file download route reads (the server's FILE_COOKIE, GET only): a
 * plain `<a href download>` then lets the browser stream a book to disk, which a header could not do.
 */
const FILE_COOKIE = 'colophon_file_token';
function setFileCookie(session: Session | null): void {
  if (typeof document === 'undefined') return;
  const maxAge = session ? Math.max(0, Math.floor((session.expiresAt - Date.now()) / 1000)) : 0;
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${FILE_COOKIE}=${session?.token ?? ''}; Path=/api/v1/books/; Max-Age=${maxAge}; SameSite=Strict${secure}`;
}

let current: Session | null = typeof localStorage === 'undefined' ? null : read();
setFileCookie(current);

export const getSession = (): Session | null => {
  if (current && current.expiresAt <= Date.now()) endSession('expired');
  return current;
};

export function startSession(login: { access_token: string; expires_in: number; user: { username: string } }): void {
  current = { token: login.access_token, expiresAt: Date.now() + login.expires_in * 1000, username: login.user.username };
  ended = false;
  localStorage.setItem(KEY, JSON.stringify(current));
  setFileCookie(current);
  for (const l of listeners) l(current, 'signed-in');
}

export const sessionEnded = (): boolean => ended;

export function endSession(reason: 'signed-out' | 'expired'): void {
  if (!current) return;
  current = null;
  ended = reason === 'expired';
  localStorage.removeItem(KEY);
  setFileCookie(null);
  for (const l of listeners) l(null, reason);
}

export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
