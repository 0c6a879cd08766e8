import { Plural, Trans } from '@lingui/react/macro';
import type { ReactNode } from 'react';

/**
 * The library grid's bar while selecting: how many are selected, the actions on them (given by the grid: "Add to
 * collection…", and more to come), and Clear. Kept in view at the bottom of the window as the grid scrolls.
 */
export function SelectionBar({ count, label, onClear, children }: { count: number; label: string; onClear(): void; children: ReactNode }) {
  return (
    <div className="selection-bar" role="region" aria-label={label}>
      <span className="selection-count" role="status">
        <Plural value={count} one={`${count} selected`} other={`${count} selected`} />
      </span>
      {count === 0 ? (
        <span className="hint">
          <Trans>Click or press Space on a cover to select it; Shift-click selects a range.</Trans>
        </span>
      ) : (
        <div className="selection-actions">{children}</div>
      )}
      <button type="button" className="small" disabled={count === 0} onClick={onClear}>
        <Trans>Clear</Trans>
      </button>
    </div>
  );
}
