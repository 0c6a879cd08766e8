/** The items in consecutive pieces of at most `size` (an `in (…)` list or a multi-row insert kept under the engines' limits). */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
