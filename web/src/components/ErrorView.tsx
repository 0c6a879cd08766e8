import { useQueryErrorResetBoundary } from '@tanstack/react-query';
import { Link, useRouter, type ErrorComponentProps } from '@tanstack/react-router';
import { useEffect } from 'react';
import { describeError } from '../api/client';

/** Every route's error boundary: the API's message in words and a way out, never a blank screen. */
export function RouteError({ error, reset }: ErrorComponentProps) {
  const router = useRouter();
  const queryReset = useQueryErrorResetBoundary();
  useEffect(() => queryReset.reset(), [queryReset]);
  return (
    <div className="page narrow" role="alert">
      <h1>Something went wrong</h1>
      <p className="error-text">{describeError(error)}</p>
      <p className="actions">
        <button
          type="button"
          onClick={() => {
            reset();
            void router.invalidate();
          }}
        >
          Try again
        </button>
        <Link to="/">Go to the home page</Link>
      </p>
    </div>
  );
}

export function NotFound() {
  return (
    <div className="page narrow">
      <h1>Page not found</h1>
      <p>There is nothing at this address.</p>
      <p>
        <Link to="/">Go to the home page</Link>
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
