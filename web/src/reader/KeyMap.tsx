import { ReaderDialog } from './ReaderDialog';

const KEYS: Array<[string, string]> = [
  ['→ / ←', 'Next / previous page (swapped in right to left)'],
  ['Space, Page Down', 'Next page (Shift+Space, Page Up: previous)'],
  ['↓ / ↑', 'Scroll (webtoon), next / previous (vertical)'],
  ['Home / End', 'First / last page'],
  ['+ / − / 0', 'Zoom in / out / reset (also Ctrl + wheel)'],
  ['F', 'Full screen'],
  ['M', 'Show or hide the menu'],
  ['Esc', 'Close a panel, or leave the reader'],
  ['?', 'This list'],
];

/** The keyboard shortcuts (`?`). */
export function KeyMap({ onClose }: { onClose(): void }) {
  return (
    <ReaderDialog title="Keyboard shortcuts" onClose={onClose}>
      <dl className="key-map">
        {KEYS.map(([k, what]) => (
          <div key={k}>
            <dt>
              <kbd>{k}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
    </ReaderDialog>
  );
}
