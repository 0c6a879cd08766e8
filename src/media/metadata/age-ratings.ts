/**
 * Age ratings as the age they stand for: ComicInfo's `AgeRating` values and the short forms people write. One
 * table for the access rules (a user's age limit) and for what the Komga layer presents as `ageRating`.
 * Ratings not in the table give the first number in them ("13+", "PEGI 16"); "Rating Pending", "Unknown" and
 * anything without a number are unrated (undefined).
 */
const AGE_BY_RATING: Readonly<Record<string, number>> = {
  'adults only 18+': 18,
  'early childhood': 3,
  everyone: 0,
  'everyone 10+': 10,
  g: 0,
  'kids to adults': 6,
  m: 17,
  'ma15+': 15,
  'mature 17+': 17,
  pg: 8,
  'r18+': 18,
  teen: 13,
  'x18+': 18,
};

const UNRATED = new Set(['rating pending', 'unknown', '']);

/** The age a rating stands for, or undefined for an unrated one. */
export function ageOf(rating: string | null | undefined): number | undefined {
  if (rating === null || rating === undefined) return undefined;
  const key = rating.trim().toLowerCase();
  if (UNRATED.has(key)) return undefined;
  const known = AGE_BY_RATING[key];
  if (known !== undefined) return known;
  const digits = /\d{1,2}/.exec(key);
  return digits ? Number(digits[0]) : undefined;
}

/** Of several ratings, the one standing for the highest age (a series is as old as its oldest book); null if none is rated. */
export function highestRating(ratings: ReadonlyArray<string | null | undefined>): string | null {
  let best: { rating: string; age: number } | null = null;
  for (const rating of ratings) {
    const age = ageOf(rating);
    if (age !== undefined && (best === null || age > best.age)) best = { rating: rating!.trim(), age };
  }
  return best?.rating ?? null;
}
