import { i18n } from '@lingui/core';
import { msg, t } from '@lingui/core/macro';
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema.gen';
import { endSession, getSession } from './session';

export type { components, paths } from './schema.gen';

/** An API error in words: the body's `message`, with the status and, on 429, the wait in seconds. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterSeconds: number | null = null,
    /** The body's `details` (a 400's: the fields refused). */
    readonly details: unknown = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const authHeaders = (): Record<string, string> => {
  const session = getSession();
  return session ? { Authorization: `Bearer ${session.token}` } : {};
};

const auth: Middleware = {
  onRequest({ request }) {
    const session = getSession();
    if (session && !request.headers.has('Authorization')) request.headers.set('Authorization', `Bearer ${session.token}`);
    // The server writes its messages (errors shown here) in the language chosen in this app, not the browser's.
    if (i18n.locale) request.headers.set('Accept-Language', i18n.locale);
    return request;
  },
  onResponse({ request, response }) {
    // A token the server no longer accepts (expired, revoked, user disabled): the session is over.
    if (response.status === 401 && request.headers.has('Authorization')) endSession('expired');
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: '' });
api.use(auth);

/** Retry-After of a response, in seconds (null when absent or unreadable). */
export function retryAfterOf(response: Response): number | null {
  const seconds = Number(response.headers.get('Retry-After'));
  return Number.isFinite(seconds) && seconds > 0 ? seconds : null;
}

export async function toApiError(response: Response, body: unknown): Promise<ApiError> {
  const b = (body ?? {}) as { error?: string; message?: string; retry_after?: number; details?: unknown };
  const retryAfter = typeof b.retry_after === 'number' ? b.retry_after : retryAfterOf(response);
  return new ApiError(
    response.status,
    b.error ?? `HTTP ${response.status}`,
    b.message ?? response.statusText ?? t`Request failed`,
    retryAfter,
    b.details ?? null,
  );
}

/** The fields a refused request named (a 400's `details`: `{field, message}` each), or none. */
export function detailsOf(error: unknown): { field: string; message: string }[] {
  if (!(error instanceof ApiError) || !Array.isArray(error.details)) return [];
  return (error.details as unknown[]).flatMap((d) => {
    const { field, message } = (d ?? {}) as { field?: unknown; message?: unknown };
    return typeof field === 'string' && typeof message === 'string' ? [{ field, message }] : [];
  });
}

/** Unwraps an openapi-fetch result: the data, or an ApiError carrying the server's message. */
export async function ok<T>(result: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await result;
  if (!response.ok) throw await toApiError(response, error);
  return data as T;
}

/**
 * A request that never got an answer (server down, network gone): fetch rejects with a TypeError whose words
 * differ by browser ("Failed to fetch", "NetworkError when attempting to fetch resource.", "Load failed").
 */
export function isNetworkError(error: unknown): boolean {
  return error instanceof TypeError && /fetch|network|load failed/i.test(error.message);
}

/** The words for a request that got no answer (a message: `i18n._(NETWORK_MESSAGE)` says it in the active language). */
export const NETWORK_MESSAGE = msg`Can't reach the server. Check your connection (or that Colophon is running), then try again.`;

/** The message to show for any error: the API's words when there are some. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    const { message, retryAfterSeconds: seconds } = error;
    if (error.status === 429 && seconds !== null) return t`${message} (try again in ${seconds} s)`;
    return message;
  }
  if (isNetworkError(error)) return i18n._(NETWORK_MESSAGE);
  if (error instanceof Error) return error.message;
  return String(error);
}
