import { useState } from 'react';
import { EMPTY_SELECTION, selectRange, toggleItem, type SelectionState } from '../../lib/selection';

export interface Selection {
  /** Selection mode is on: cards select instead of opening. */
  active: boolean;
  ids: ReadonlySet<string>;
  setActive(on: boolean): void;
  /** A click or Space on the item at `index` (Shift: the range from the last click). */
  select(id: string, index: number, shift: boolean): void;
  clear(): void;
}

/**
 * The library grid's selection (of series or of books), for the actions of its selection bar. `scope` names what is
 * selected (the view): another scope starts empty. `order` names the grid's order: after a new sort or filter, a
 * Shift-click no longer ranges from a place that now holds something else. `idAt` gives the id at a place of the grid.
 */
export function useSelection(scope: string, order: string, idAt: (index: number) => string | undefined): Selection {
  const [active, setActiveState] = useState(false);
  const [state, setState] = useState<SelectionState & { scope: string; order: string }>({ ...EMPTY_SELECTION, scope, order });
  // Adjusted while rendering (React's way for state that follows a prop), not in an effect.
  if (state.scope !== scope) setState({ ...EMPTY_SELECTION, scope, order });
  else if (state.order !== order) setState({ ...state, anchor: null, order });
  return {
    active,
    ids: state.ids,
    setActive: (on) => {
      setActiveState(on);
      if (!on) setState({ ...EMPTY_SELECTION, scope, order });
    },
    select: (id, index, shift) =>
      setState((s) => ({ ...(shift ? selectRange(s, index, idAt) : toggleItem(s, id, index)), scope: s.scope, order: s.order })),
    clear: () => setState({ ...EMPTY_SELECTION, scope, order }),
  };
}
