import { useLingui } from '@lingui/react/macro';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { authHeaders } from '../api/client';
import { fetchWaitingOutRateLimit } from '../api/retry';

/**
 * Thumbnails need the session's token, which an <img src> cannot send: they are fetched (the browser's HTTP
 * cache still revalidates them by ETag) and shown as blob: URLs. A bounded cache keeps the blob URLs of
 * recently shown covers so a virtualised grid scrolling back does not refetch, and revokes the oldest.
 */
const MAX_CACHED = 600;
const cache = new Map<string, string>();
const pending = new Map<string, Promise<string | null>>();
let version = 0;
const versionListeners = new Set<() => void>();

/** After a cover_updated event: every cover is revalidated the next time it is drawn. */
export function coversChanged(): void {
  version += 1;
  for (const url of cache.values()) URL.revokeObjectURL(url);
  cache.clear();
  for (const l of versionListeners) l();
}

function load(src: string, revalidate: boolean): Promise<string | null> {
  const hit = cache.get(src);
  if (hit) {
    cache.delete(src);
    cache.set(src, hit);
    return Promise.resolve(hit);
  }
  let p = pending.get(src);
  if (!p) {
    // A cover refused by the rate limit (a fast scroll through a large grid) is asked again after the wait.
    p = fetchWaitingOutRateLimit(src, { headers: authHeaders(), cache: revalidate ? 'no-cache' : 'default' })
      .then(async (r) => {
        if (!r.ok) return null;
        const url = URL.createObjectURL(await r.blob());
        cache.set(src, url);
        while (cache.size > MAX_CACHED) {
          const [oldest, oldUrl] = cache.entries().next().value as [string, string];
          cache.delete(oldest);
          URL.revokeObjectURL(oldUrl);
        }
        return url;
      })
      .catch(() => null)
      .finally(() => pending.delete(src));
    pending.set(src, p);
  }
  return p;
}

const subscribe = (l: () => void) => {
  versionListeners.add(l);
  return () => versionListeners.delete(l);
};

/** `alt`: what the cover shows ("Cover of Saga"), or `""` where the title is right next to it. */
export function Cover({ src, alt, className }: { src: string; alt: string; className?: string }) {
  const { t } = useLingui();
  const ref = useRef<HTMLDivElement>(null);
  const v = useSyncExternalStore(subscribe, () => version);
  const [state, setState] = useState<{ src: string; url: string | null; failed: boolean }>(() => ({
    src,
    url: cache.get(src) ?? null,
    failed: false,
  }));
  const url = state.src === src ? state.url : (cache.get(src) ?? null);
  const failed = state.src === src && state.failed;

  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    let cancelled = false;
    const observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((e) => e.isIntersecting)) return;
        observer.disconnect();
        void load(src, v > 0).then((loaded) => {
          if (!cancelled) setState({ src, url: loaded, failed: loaded === null });
        });
      },
      { rootMargin: '400px' },
    );
    observer.observe(element);
    return () => {
      cancelled = true;
      observer.disconnect();
    };
  }, [src, v]);

  // `alt=""`: decorative, where the title stands next to the cover (cards, book rows); the placeholder is then
  // hidden too, since an image role without a name is an accessibility error.
  let placeholder = <div className="cover-placeholder" aria-hidden="true" />;
  if (alt) placeholder = <div className="cover-placeholder" role="img" aria-label={failed ? t`${alt} (no cover)` : alt} />;
  return (
    <div ref={ref} className={`cover ${className ?? ''}`}>
      {url ? <img src={url} alt={alt} decoding="async" /> : placeholder}
    </div>
  );
}
