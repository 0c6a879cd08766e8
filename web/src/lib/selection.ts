/**
 * A selection of a list's items by id: the ids chosen, and the place of the last plain click (the anchor of a
 * Shift-click range). Pure, so that the grid's hook (screens/library/use-selection.ts) stays small and this is tested.
 */
export interface SelectionState {
  ids: ReadonlySet<string>;
  anchor: number | null;
}

export const EMPTY_SELECTION: SelectionState = { ids: new Set(), anchor: null };

/** A plain click or Space: the item flips in or out, and becomes the anchor of the next range. */
export function toggleItem(state: SelectionState, id: string, index: number): SelectionState {
  const ids = new Set(state.ids);
  if (ids.has(id)) ids.delete(id);
  else ids.add(id);
  return { ids, anchor: index };
}

/**
 * A Shift-click: every item from the anchor to this one is selected (the anchor stays, so a second Shift-click
 * adjusts from the same place). Without an anchor it is a plain click. Places whose item is not known (a page not
 * loaded) are skipped.
 */
export function selectRange(state: SelectionState, index: number, idAt: (index: number) => string | undefined): SelectionState {
  if (state.anchor === null) {
    const id = idAt(index);
    return id === undefined ? state : toggleItem(state, id, index);
  }
  const ids = new Set(state.ids);
  const [from, to] = state.anchor <= index ? [state.anchor, index] : [index, state.anchor];
  for (let i = from; i <= to; i++) {
    const id = idAt(i);
    if (id !== undefined) ids.add(id);
  }
  return { ids, anchor: state.anchor };
}
