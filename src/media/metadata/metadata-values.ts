/** Small normalisers shared by the metadata sources. */
import { decodeXmlText } from './xml.js';

export function splitList(value: string | null, separators: RegExp = /[,;]/): string[] {
  if (!value) return [];
  const seen = new Set<string>();
  const result: string[] = [];
  for (const part of value.split(separators)) {
    const item = part.trim();
    if (item && !seen.has(item.toLowerCase())) {
      seen.add(item.toLowerCase());
      result.push(item);
    }
  }
  return result;
}

/** "12.5" → 12.5, "001" → 1, "1a" → 1, "½" → 0.5; null when there is no number at all. */
export function numberSortOf(number: string | null): number | null {
  if (number === null) return null;
  const text = number.trim().replace(',', '.');
  if (text === '½') return 0.5;
  const match = /-?\d+(?:\.\d+)?/.exec(text);
  if (!match) return null;
  const value = Number(match[0]);
  return Number.isFinite(value) ? value : null;
}

/** Removes leading zeros from integral parts ("001" → "1", "012.5" → "12.5"), keeps any suffix ("1a"). */
export function normaliseNumber(number: string | null): string | null {
  if (number === null) return null;
  const text = number.trim();
  if (text === '') return null;
  return text.replace(/^0+(?=\d)/, '');
}

export function positiveInt(value: string | null, max = Number.MAX_SAFE_INTEGER): number | null {
  if (value === null) return null;
  const n = Number(value.trim());
  return Number.isInteger(n) && n > 0 && n <= max ? n : null;
}

/** Year, month and day from an ISO-like date ("2013", "2013-05", "2013-05-12T…") or a PDF date ("D:20130512…"). */
export function dateParts(value: string | null): { year?: number; month?: number; day?: number } {
  if (!value) return {};
  const match = /^(?:D:)?(\d{4})(?:-?(\d{2})(?:-?(\d{2}))?)?/.exec(value.trim());
  if (!match) return {};
  const year = Number(match[1]);
  const month = match[2] ? Number(match[2]) : undefined;
  const day = match[3] ? Number(match[3]) : undefined;
  if (year < 1000 || year > 9999) return {};
  const result: { year?: number; month?: number; day?: number } = { year };
  if (month !== undefined && month >= 1 && month <= 12) {
    result.month = month;
    if (day !== undefined && day >= 1 && day <= 31) result.day = day;
  }
  return result;
}

function isbn10Valid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < 10; i++) {
    const c = digits[i] ?? '';
    const value = i === 9 && (c === 'X' || c === 'x') ? 10 : Number(c);
    if (Number.isNaN(value)) return false;
    sum += value * (10 - i);
  }
  return sum % 11 === 0;
}

function isbn13Valid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < 13; i++) sum += Number(digits[i]) * (i % 2 === 0 ? 1 : 3);
  return sum % 10 === 0;
}

/** A valid ISBN-10 or ISBN-13 found in the text ("urn:isbn:978-…", "ISBN 0-306-40615-2"), digits only. */
export function isbnOf(value: string | null): string | null {
  if (!value) return null;
  const compact = value
    .replace(/^urn:isbn:/i, '')
    .replace(/^isbn[:\s]*/i, '')
    .replace(/[\s-]/g, '');
  if (/^97[89]\d{10}$/.test(compact) && isbn13Valid(compact)) return compact;
  if (/^\d{9}[\dXx]$/.test(compact) && isbn10Valid(compact)) return compact.toUpperCase();
  return null;
}

/** Plain text from a description that may hold HTML. */
export function plainText(value: string | null): string | null {
  if (!value) return null;
  const text = value
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>/gi, '\n\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/gi, ' ');
  const decoded = decodeXmlText(text)
    .replace(/[ \t]+/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return decoded === '' ? null : decoded;
}
