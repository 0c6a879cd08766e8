import { Trans } from '@lingui/react/macro';
import { useQueryErrorResetBoundary } from '@tanstack/react-query';
import { Link, useLocation, useRouter, type ErrorComponentProps } from '@tanstack/react-router';
import { useEffect } from 'react';
import { describeError, isNetworkError } from '../api/client';
import { notFoundTitle } from '../lib/not-found';

/**
 * Every route's error boundary: the API's message in words and a way out, never a blank screen. Nothing at the
 * address (a 404, an id that is not one) says so with a way home: trying again would not help.
 */
export function RouteError({ error, reset }: ErrorComponentProps) {
  const router = useRouter();
  const pathname = useLocation({ select: (l) => l.pathname });
  const queryReset = useQueryErrorResetBoundary();
  useEffect(() => queryReset.reset(), [queryReset]);
  const missing = notFoundTitle(error, pathname);
  if (missing) {
    return (
      <div className="page narrow" role="alert">
        <h1>{missing}</h1>
        <p>
          <Trans>There is nothing at this address: it may have been removed, or the link is wrong.</Trans>
        </p>
        <p>
          <Link to="/">
            <Trans>Go to the home page</Trans>
          </Link>
        </p>
      </div>
    );
  }
  return (
    <div className="page narrow" role="alert">
      <h1>{isNetworkError(error) ? <Trans>Can't reach the server</Trans> : <Trans>Something went wrong</Trans>}</h1>
      <p className="error-text">{describeError(error)}</p>
      <p className="actions">
        <button
          type="button"
          onClick={() => {
            reset();
            void router.invalidate();
          }}
        >
          <Trans>Try again</Trans>
        </button>
        <Link to="/">
          <Trans>Go to the home page</Trans>
        </Link>
      </p>
    </div>
  );
}

export function NotFound() {
  return (
    <div className="page narrow">
      <h1>
        <Trans>Page not found</Trans>
      </h1>
      <p>
        <Trans>There is nothing at this address.</Trans>
      </p>
      <p>
        <Link to="/">
          <Trans>Go to the home page</Trans>
        </Link>
      </p>
    </div>
  );
}

/** An inline error for a failed query or action inside a screen that otherwise works. */
export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="error-text" role="alert">
      {describeError(error)}
    </p>
  );
}
