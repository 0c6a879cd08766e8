import { useSyncExternalStore } from 'react';

const subscribeResize = (l: () => void) => {
  window.addEventListener('resize', l);
  return () => window.removeEventListener('resize', l);
};
let lastViewport = { width: 0, height: 0 };
const viewportSnapshot = () => {
  if (lastViewport.width !== window.innerWidth || lastViewport.height !== window.innerHeight)
    lastViewport = { width: window.innerWidth, height: window.innerHeight };
  return lastViewport;
};

/** The window's size, updated on resize (one snapshot object per size, as useSyncExternalStore needs). */
export function useViewport(): { width: number; height: number } {
  return useSyncExternalStore(subscribeResize, viewportSnapshot);
}
