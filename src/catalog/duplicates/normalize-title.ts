/**
 * The key under which two series titles count as the same work: case, accents, punctuation, leading
 * articles, volume suffixes and years are ignored. "The Amazing Spider-Man (2018) Vol. 2" and
 * "amazing spiderman" share a key.
 */
const ARTICLES = new Set(['the', 'a', 'an', 'le', 'la', 'les', 'l', 'der', 'die', 'das', 'el', 'los', 'las', 'il', 'lo', 'gli']);

export function normalizeTitle(title: string): string {
  let t = title
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/&/g, ' and ');
  // Trailing ", The" (library sort form) is an article too.
  t = t.replace(/,\s*(the|a|an)\s*$/u, '');
  // Years and bracketed tags: "(2018)", "[Digital]".
  t = t.replace(/[([{][^)\]}]*[)\]}]/gu, ' ');
  // Volume suffixes: "vol. 2", "volume 3", "v02", "tome 4", "book 5".
  t = t.replace(/\b(vol(ume)?|v|tome|t|book|bk)\.?\s*\d+(\.\d+)?\b/gu, ' ');
  // Hyphens and apostrophes join words ("spider-man" = "spiderman", "l'homme" = "l homme").
  t = t.replace(/[-\u2010\u2011\u2013\u2014]/gu, '').replace(/['\u2019]/gu, ' ');
  t = t.replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  const words = t.split(' ').filter(Boolean);
  while (words.length > 1 && ARTICLES.has(words[0]!)) words.shift();
  return words.join(' ');
}
