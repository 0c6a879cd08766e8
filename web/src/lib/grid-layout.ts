/**
 * How many cover cards fit in a row of the grid and how tall a row is, from the grid's width: cards are at
 * least `minCard` wide, share the leftover space, and keep the 2:3 cover plus two lines of text.
 */
export function gridLayout(
  width: number,
  minCard: number,
  gap: number,
  textHeight: number,
): { columns: number; cardWidth: number; rowHeight: number } {
  const columns = Math.max(1, Math.floor((width + gap) / (minCard + gap)));
  const cardWidth = (width - gap * (columns - 1)) / columns;
  return { columns, cardWidth, rowHeight: Math.ceil(cardWidth * 1.5 + textHeight + gap) };
}

/** The 1-based pages of `pageSize` items that hold the items from `first` to `last` (inclusive, 0-based). */
export function pagesFor(first: number, last: number, pageSize: number): number[] {
  if (last < first) return [];
  const pages: number[] = [];
  for (let p = Math.floor(first / pageSize) + 1; p <= Math.floor(last / pageSize) + 1; p += 1) pages.push(p);
  return pages;
}
