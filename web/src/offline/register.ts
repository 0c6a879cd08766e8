import { t } from '@lingui/core/macro';
import { registerSW } from 'virtual:pwa-register';
import { getSession, onSessionChange } from '../api/session';
import { progressTransport } from '../reader/data';
import { sendPending } from '../reader/progress';
import { currentUser, forgetDownloads, syncDownloads } from './downloads';
import { forgetJob, resumeInterrupted } from './manager';

interface Navigator {
  navigate(options: { to: string }): unknown;
  subscribe(event: 'onResolved', listener: () => void): () => void;
  state: { location: { pathname: string } };
}

type Bar = { kind: 'update'; reload: () => void } | { kind: 'offline' } | null;
let updateWaiting: (() => void) | null = null;
let shown: Bar = null;
let host: HTMLElement | null = null;
let router: Navigator | null = null;

/** Where the person reads: an update is never offered there (a reload would take the book away mid-page). */
const inReader = () => !!router && /\/books\/[^/]+\/read$/.test(router.state.location.pathname);

/** The bar at the foot of the screen, drawn with the DOM (this module stays out of the first screen's React tree). */
function draw(): void {
  if (!host) return;
  host.replaceChildren();
  const bar = shown;
  if (!bar || (bar.kind === 'update' && inReader())) return;
  const box = document.createElement('div');
  box.className = `app-bar ${bar.kind}-bar`;
  box.setAttribute('role', 'status');
  if (bar.kind === 'offline') {
    const link = document.createElement('a');
    link.href = '/downloads';
    link.textContent = t`Downloads`;
    link.addEventListener('click', (e) => {
      e.preventDefault();
      router?.navigate({ to: '/downloads' });
    });
    box.append(t`You are offline. Downloaded books can still be read.`, ' ', link);
  } else {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = t`Reload to update`;
    button.addEventListener('click', bar.reload);
    box.append(t`A new version of Colophon is ready.`, ' ', button);
  }
  host.append(box);
}

function showBar(bar: Bar): void {
  shown = bar;
  draw();
}

/** What comes home with the connection: positions read offline, downloads the server no longer allows, cut downloads. */
async function cameBack(): Promise<void> {
  showBar(updateWaiting ? { kind: 'update', reload: updateWaiting } : null);
  await sendPending(progressTransport, localStorage).catch(() => 0);
  const removed = await syncDownloads().catch(() => []);
  for (const bookId of removed) forgetJob(bookId);
  await resumeInterrupted().catch(() => undefined);
}

export function startOffline(appRouter: Navigator): void {
  router = appRouter;
  host = document.createElement('div');
  host.className = 'app-bars';
  document.body.append(host);
  router.subscribe('onResolved', draw);

  if ('serviceWorker' in navigator) {
    const update = registerSW({
      onNeedRefresh() {
        updateWaiting = () => void update(true);
        showBar({ kind: 'update', reload: updateWaiting });
      },
    });
  }
  // Whether the server answers, asked rather than read off navigator.onLine (true on a network that goes nowhere):
  // at start, when the browser says the network changed, when the tab comes back, and every 5 s while it does not
  // (every minute while it does).
  let reachable: boolean | null = null;
  const probe = async () => {
    const now = await fetch('/health', { cache: 'no-store' }).then(
      () => true,
      () => false,
    );
    if (now === reachable) return;
    reachable = now;
    if (now) void cameBack();
    else showBar({ kind: 'offline' });
  };
  window.addEventListener('offline', () => void probe());
  window.addEventListener('online', () => void probe());
  document.addEventListener('visibilitychange', () => document.visibilityState === 'visible' && void probe());
  // The next probe's delay is chosen once the last one has answered.
  const again = (): void => void setTimeout(() => void probe().finally(again), reachable === false ? 5_000 : 60_000);
  void probe().finally(again);

  // Sign-out: nothing the person downloaded stays readable in this browser.
  // So does a session the server refused before its time (revoked, the account disabled): a token that merely ran
  // out keeps them for the next sign-in.
  let user = currentUser();
  let until = getSession()?.expiresAt ?? 0;
  onSessionChange((session, reason) => {
    const refused = reason === 'expired' && until > Date.now();
    if ((reason === 'signed-out' || refused) && user) {
      forgetJob();
      void forgetDownloads(user);
    }
    user = session ? currentUser() : null;
    until = session?.expiresAt ?? 0;
  });
}
