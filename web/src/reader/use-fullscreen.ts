import { useEffect, useState } from 'react';

/** Whether the page is full screen, and a way to switch. */
export function useFullscreen(): { on: boolean; toggle(): void } {
  const [on, setOn] = useState(() => !!document.fullscreenElement);
  useEffect(() => {
    const change = () => setOn(!!document.fullscreenElement);
    document.addEventListener('fullscreenchange', change);
    return () => document.removeEventListener('fullscreenchange', change);
  }, []);
  return {
    on,
    toggle: () => {
      if (document.fullscreenElement) void document.exitFullscreen().catch(() => undefined);
      else void document.documentElement.requestFullscreen?.().catch(() => undefined);
    },
  };
}
