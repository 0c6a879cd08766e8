import { useState } from 'react';
import { deviceClass, rememberEink, type DeviceClass } from './settings';
import { useViewport } from './use-viewport';

/** The kind of device the reader's settings are saved for: detected from the screen, or e-ink when the user chose it. */
export function useDeviceClass(): [DeviceClass, (dc: DeviceClass) => void] {
  const viewport = useViewport();
  const [einkChosen, setEinkChosen] = useState(() => localStorage.getItem('colophon.reader.eink') === '1');
  const coarse = typeof matchMedia === 'function' && matchMedia('(pointer: coarse)').matches;
  const detected = deviceClass({ ...viewport, coarse }, null);
  return [
    einkChosen ? 'eink' : detected,
    (dc) => {
      rememberEink(dc === 'eink');
      setEinkChosen(dc === 'eink');
    },
  ];
}
