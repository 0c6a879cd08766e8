/**
 * The numbers a renumbering gives, as the server computes them (start, start + step, …, rounded to 3 decimals), or
 * null when the start or the step is out of the server's range.
 */
export function renumbered(count: number, startText: string, stepText: string): number[] | null {
  const start = Number(startText);
  const step = Number(stepText);
  if (startText.trim() === '' || !Number.isFinite(start) || Math.abs(start) > 1_000_000) return null;
  if (stepText.trim() === '' || !Number.isFinite(step) || step < 0.001 || step > 1_000_000) return null;
  // `+ 0` turns a rounded -0 into 0.
  return Array.from({ length: count }, (_, i) => Math.round((start + i * step) * 1000) / 1000 + 0);
}
