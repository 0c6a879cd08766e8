import { describe, expect, it } from 'vitest';
import { EMPTY_SELECTION, selectRange, toggleItem } from './selection';

const items = ['a', 'b', 'c', 'd', 'e'];
const idAt = (i: number) => items[i];

describe('selection', () => {
  it('toggles an item in and out and keeps the last click as the anchor', () => {
    const one = toggleItem(EMPTY_SELECTION, 'b', 1);
    expect([...one.ids]).toEqual(['b']);
    expect(one.anchor).toBe(1);
    const none = toggleItem(one, 'b', 1);
    expect(none.ids.size).toBe(0);
    expect(EMPTY_SELECTION.ids.size).toBe(0);
  });

  it('selects a range from the anchor either way, keeping what was selected', () => {
    const start = toggleItem(toggleItem(EMPTY_SELECTION, 'e', 4), 'b', 1);
    expect([...selectRange(start, 3, idAt).ids].sort()).toEqual(['b', 'c', 'd', 'e']);
    const back = toggleItem(EMPTY_SELECTION, 'd', 3);
    const range = selectRange(back, 1, idAt);
    expect([...range.ids].sort()).toEqual(['b', 'c', 'd']);
    expect(range.anchor).toBe(3);
  });

  it('skips places not loaded, and is a plain click without an anchor', () => {
    const sparse = (i: number) => (i === 2 ? undefined : items[i]);
    expect([...selectRange(toggleItem(EMPTY_SELECTION, 'a', 0), 3, sparse).ids].sort()).toEqual(['a', 'b', 'd']);
    const first = selectRange(EMPTY_SELECTION, 2, idAt);
    expect([...first.ids]).toEqual(['c']);
    expect(first.anchor).toBe(2);
  });
});
