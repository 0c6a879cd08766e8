/** Share of a book read, 0..1: current_page / page_count, and 1 once completed. */
export function progressFraction(currentPage: number, pageCount: number, completed: boolean): number {
  if (completed) return 1;
  if (pageCount <= 0) return 0;
  return Math.min(1, Math.max(0, Math.round((currentPage / pageCount) * 10_000) / 10_000));
}
