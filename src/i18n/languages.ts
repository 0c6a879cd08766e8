import Negotiator from 'negotiator';

/**
 * The languages Colophon speaks (issue 53), the same twelve as the web app's (web/src/i18n.ts): server texts a
 * person reads — error messages, e-mails, OPDS feed titles — follow the request's `Accept-Language`.
 */
export const LANGUAGES = ['en', 'fr', 'de', 'es', 'it', 'pt-BR', 'nl', 'pl', 'ja', 'zh-Hans', 'ko', 'ar'] as const;
export type Language = (typeof LANGUAGES)[number];

const byLowerCase = new Map<string, Language>(LANGUAGES.map((code) => [code.toLowerCase(), code]));

export const isLanguage = (tag: string | null | undefined): tag is Language => !!tag && (LANGUAGES as readonly string[]).includes(tag);

/** The closest shipped language to one tag (`fr-CA` → fr, `zh-CN` → zh-Hans, `pt-PT` → pt-BR), or none. */
function closest(tag: string): Language | undefined {
  const exact = byLowerCase.get(tag.toLowerCase());
  if (exact) return exact;
  const base = tag.split('-')[0]!.toLowerCase();
  // Traditional Chinese is not shipped: a reader of it is better served by English than by Simplified.
  if (base === 'zh' && /-(tw|hk|mo|hant)\b/i.test(tag)) return undefined;
  return LANGUAGES.find((code) => code.split('-')[0]!.toLowerCase() === base);
}

/**
 * The language of a request's `Accept-Language` (quality values honoured by negotiator): the first tag, best
 * first, that a shipped language is close to; English when the header is absent or names none of them.
 */
export function languageOf(acceptLanguage: string | string[] | undefined): Language {
  if (!acceptLanguage) return 'en';
  const header = Array.isArray(acceptLanguage) ? acceptLanguage.join(',') : acceptLanguage;
  // A header is a client's to write: an absurd one is read only so far, never refused.
  const tags = new Negotiator({ headers: { 'accept-language': header.slice(0, 1000) } }).languages();
  for (const tag of tags) {
    if (tag === '*') return 'en';
    const language = closest(tag);
    if (language) return language;
  }
  return 'en';
}
