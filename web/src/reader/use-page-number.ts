import { useState } from 'react';
import { rememberPageNumber, showsPageNumber } from './settings';

/** Whether the position shows for a moment after each turn: this browser's choice (see showsPageNumber). */
export function usePageNumber(): [boolean, (on: boolean) => void] {
  const [on, setOn] = useState(() => showsPageNumber());
  return [
    on,
    (value) => {
      rememberPageNumber(value);
      setOn(value);
    },
  ];
}
