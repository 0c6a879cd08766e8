import type { MessageDescriptor } from '@lingui/core';
import { msg } from '@lingui/core/macro';
import { useLingui } from '@lingui/react';
import { ReaderDialog } from './ReaderDialog';

/** The keys (a message where the key names differ between keyboards' languages) and what they do. */
const KEYS: Array<[string | MessageDescriptor, MessageDescriptor]> = [
  ['→ / ←', msg`Next / previous page (swapped in right to left)`],
  [msg({ message: 'Space, Page Down', context: 'keyboard keys' }), msg`Next page (Shift+Space, Page Up: previous)`],
  ['↓ / ↑', msg`Scroll (webtoon), next / previous (vertical)`],
  [msg({ message: 'Home / End', context: 'keyboard keys' }), msg`First / last page`],
  ['+ / − / 0', msg`Zoom in / out / reset (also Ctrl + wheel)`],
  ['F', msg`Full screen`],
  ['M', msg`Show or hide the menu`],
  [msg({ message: 'Esc', context: 'keyboard key' }), msg`Close a panel, or leave the reader`],
  ['?', msg`This list`],
];

/** The keyboard shortcuts (`?`). */
export function KeyMap({ onClose }: { onClose(): void }) {
  const { _ } = useLingui();
  return (
    <ReaderDialog title={_(msg`Keyboard shortcuts`)} onClose={onClose}>
      <dl className="key-map">
        {KEYS.map(([k, what], i) => (
          <div key={i}>
            <dt>
              <kbd>{typeof k === 'string' ? k : _(k)}</kbd>
            </dt>
            <dd>{_(what)}</dd>
          </div>
        ))}
      </dl>
    </ReaderDialog>
  );
}
