/**
 * Reading order of archive entries: natural ("page2" before "page10"), case-insensitive, folder by folder so
 * that nested chapters flatten in the order a person would read them.
 */
const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

export function comparePageNames(a: string, b: string): number {
  const pa = a.split('/');
  const pb = b.split('/');
  const shared = Math.min(pa.length, pb.length);
  for (let i = 0; i < shared; i++) {
    const x = pa[i] ?? '';
    const y = pb[i] ?? '';
    if (x === y) continue;
    // A file sorts before a folder of the same level, so a cover at the root comes before the chapters.
    const xIsFile = i === pa.length - 1;
    const yIsFile = i === pb.length - 1;
    if (xIsFile !== yIsFile) return xIsFile ? -1 : 1;
    const order = collator.compare(x, y);
    if (order !== 0) return order;
  }
  if (pa.length !== pb.length) return pa.length - pb.length;
  // Names equal to the collator ("A.jpg", "a.jpg") still need a stable order.
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sortPageNames<T>(items: readonly T[], nameOf: (item: T) => string): T[] {
  return [...items].sort((a, b) => comparePageNames(nameOf(a), nameOf(b)));
}
