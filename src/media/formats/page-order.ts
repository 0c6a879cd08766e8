/**
 * Reading order of archive entries: natural ("page2" before "page10"), case-insensitive, folder by folder so
 * that nested chapters flatten in the order a person would read them.
 */
// Made on first use: building a collator pages in ~3 MB of ICU data, which a server that has not sorted pages
// yet (every fresh start) does not need resident.
let collator: Intl.Collator | undefined;

export function comparePageNames(a: string, b: string): number {
  return compareSplit(a, a.split('/'), b, b.split('/'));
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/**
 * The collator's answer, without asking it, for what most archives hold: two ASCII names of one length that first
 * differ inside digit runs of one length ("page-007.jpg", "page-012.jpg"), whose order is that of the first
 * differing digit. Undefined for anything else. Collating every pair was a scan's largest cost in sorting pages.
 */
function sameShapeOrder(x: string, y: string): number | undefined {
  const length = x.length;
  if (y.length !== length) return undefined;
  let i = 0;
  while (i < length && x.charCodeAt(i) === y.charCodeAt(i)) i++;
  if (i === length) return undefined;
  const a = x.charCodeAt(i);
  const b = y.charCodeAt(i);
  if (!isDigit(a) || !isDigit(b)) return undefined;
  let end = i + 1;
  while (end < length && isDigit(x.charCodeAt(end)) && isDigit(y.charCodeAt(end))) end++;
  if (end < length && (isDigit(x.charCodeAt(end)) || isDigit(y.charCodeAt(end)))) return undefined;
  for (let k = 0; k < length; k++) if (x.charCodeAt(k) > 0x7e || y.charCodeAt(k) > 0x7e) return undefined;
  return a - b;
}

function compareSplit(a: string, pa: readonly string[], b: string, pb: readonly string[]): number {
  const shared = Math.min(pa.length, pb.length);
  for (let i = 0; i < shared; i++) {
    const x = pa[i] ?? '';
    const y = pb[i] ?? '';
    if (x === y) continue;
    // A file sorts before a folder of the same level, so a cover at the root comes before the chapters.
    const xIsFile = i === pa.length - 1;
    const yIsFile = i === pb.length - 1;
    if (xIsFile !== yIsFile) return xIsFile ? -1 : 1;
    const order = sameShapeOrder(x, y) ?? (collator ??= new Intl.Collator('en', { numeric: true, sensitivity: 'base' })).compare(x, y);
    if (order !== 0) return order;
  }
  if (pa.length !== pb.length) return pa.length - pb.length;
  // Names equal to the collator ("A.jpg", "a.jpg") still need a stable order.
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Each name is split into its folders once, not once per comparison: a scan sorts the pages of every book, and
 * the splitting was most of the sorting's cost.
 */
export function sortPageNames<T>(items: readonly T[], nameOf: (item: T) => string): T[] {
  // Arrays built by push, not by Array.prototype.map: map's result changes elements kind once its caller is
  // optimised, and every optimised function that had seen the other kind then deoptimises ("wrong map").
  const keyed: Array<{ item: T; name: string; parts: string[] }> = [];
  for (const item of items) {
    const name = nameOf(item);
    keyed.push({ item, name, parts: name.split('/') });
  }
  const order = (a: (typeof keyed)[number], b: (typeof keyed)[number]) => compareSplit(a.name, a.parts, b.name, b.parts);
  // Archives mostly list their pages in order already: one comparison per pair, not a sort's worth.
  let sorted = true;
  for (let i = 1; i < keyed.length && sorted; i++) sorted = order(keyed[i - 1]!, keyed[i]!) <= 0;
  if (!sorted) keyed.sort(order);
  const out: T[] = [];
  for (const k of keyed) out.push(k.item);
  return out;
}
