/** Bounds of the five cron fields: minute, hour, day of month, month, day of week (0 and 7 are Sunday). */
const FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day of week', min: 0, max: 7 },
] as const;

const NAMES: Record<string, number> = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12, sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

function value(text: string): number | null {
  if (/^\d+$/.test(text)) return Number(text);
  return NAMES[text.toLowerCase()] ?? null;
}

/**
 * Checks a five-field cron expression as it is typed and says what is wrong in words, or returns null when it
 * is valid. The server checks again on save; this only spares a round trip.
 */
export function cronProblem(expression: string): string | null {
  const parts = expression.trim().split(/\s+/).filter(Boolean);
  if (parts.length !== 5) return `A schedule has 5 fields (minute hour day month weekday); this one has ${parts.length}.`;
  for (const [i, part] of parts.entries()) {
    const field = FIELDS[i] as (typeof FIELDS)[number];
    for (const item of part.split(',')) {
      const [range = '', step, extra] = item.split('/');
      if (extra !== undefined || (step !== undefined && !/^[1-9]\d*$/.test(step))) return `The ${field.name} field has a bad step: "${item}".`;
      if (range === '*') continue;
      const [from = '', to, more] = range.split('-');
      const a = value(from);
      const b = to === undefined ? a : value(to);
      if (more !== undefined || a === null || b === null) return `The ${field.name} field has "${item}", which is not a number, a range or *.`;
      if (a < field.min || b > field.max || a > b) return `The ${field.name} field must stay within ${field.min}–${field.max}: "${item}".`;
    }
  }
  return null;
}
