import { useState } from 'react';

/** Reading without saving progress, for this tab's session. */
export function useIncognito(): [boolean, (on: boolean) => void] {
  const [on, setOn] = useState(() => sessionStorage.getItem('bindery.reader.incognito') === '1');
  return [
    on,
    (value) => {
      if (value) sessionStorage.setItem('bindery.reader.incognito', '1');
      else sessionStorage.removeItem('bindery.reader.incognito');
      setOn(value);
    },
  ];
}
