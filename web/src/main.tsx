import { I18nProvider } from '@lingui/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { queryRetryDelay, shouldRetryQuery } from './api/retry';
import { activateLanguage, i18n, initialLanguage } from './i18n';
import { createAppRouter } from './router';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      // Rate limits (429) are waited out; other 4xx answers will not change; network hiccups and 5xx get one more try.
      retry: shouldRetryQuery,
      retryDelay: queryRetryDelay,
      refetchOnWindowFocus: false,
      // Asked even when the browser says it is offline: the service worker answers for downloaded books.
      networkMode: 'always',
    },
  },
});
const router = createAppRouter(queryClient);

// The catalogue first (one small request): the first screen is drawn in its language, never English then another.
void activateLanguage(initialLanguage()).then(() =>
  createRoot(document.getElementById('root') as HTMLElement).render(
    <StrictMode>
      <I18nProvider i18n={i18n}>
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </I18nProvider>
    </StrictMode>,
  ),
);
// After the first screen: the service worker, the update bar and the offline bar (issue 54).
window.addEventListener('load', () => void import('./offline/register').then((m) => m.startOffline(router)));
