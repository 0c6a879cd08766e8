import { useState } from 'react';

/** Reading without saving progress, for this tab's session. */
export function useIncognito(): [boolean, (on: boolean) => void] {
  const [on, setOn] = useState(() => sessionStorage.getItem('colophon.reader.incognito') === '1');
  return [
    on,
    (value) => {
      if (value) sessionStorage.setItem('colophon.reader.incognito', '1');
      else sessionStorage.removeItem('colophon.reader.incognito');
      setOn(value);
    },
  ];
}
