import { i18n } from '@lingui/core';

/**
 * The interface languages (issue 53): each one's own name, as a person looking for it would recognise it. The
 * catalogues are web/src/locales/{locale}.po, each loaded on demand (only the one in use is ever fetched).
 */
export const LANGUAGES = {
  en: 'English',
  fr: 'Fran\u00e7ais',
  de: 'Deutsch',
  es: 'Espa\u00f1ol',
  it: 'Italiano',
  'pt-BR': 'Portugu\u00eas (Brasil)',
  nl: 'Nederlands',
  pl: 'Polski',
  ja: '\u65e5\u672c\u8a9e',
  'zh-Hans': '\u7b80\u4f53\u4e2d\u6587',
  ko: '\ud55c\uad6d\uc5b4',
  ar: '\u0627\u0644\u0639\u0631\u0628\u064a\u0629',
} as const;
export type Language = keyof typeof LANGUAGES;
export const LANGUAGE_CODES = Object.keys(LANGUAGES) as Language[];

/** Written right to left: the layout mirrors (CSS logical properties); a comic's own reading direction does not. */
const RIGHT_TO_LEFT = new Set<Language>(['ar']);
const STORED = 'colophon.language';

export const isLanguage = (tag: string | null | undefined): tag is Language => !!tag && tag in LANGUAGES;

/** The closest shipped language to what a browser asks for (`navigator.languages`), English when none is close. */
export function closestLanguage(wanted: readonly string[]): Language {
  for (const tag of wanted) {
    if (isLanguage(tag)) return tag;
    const canonical = LANGUAGE_CODES.find((code) => code.toLowerCase() === tag.toLowerCase());
    if (canonical) return canonical;
    const base = tag.split('-')[0]!.toLowerCase();
    // pt-PT still reads pt-BR better than English; zh-TW and zh-HK read Traditional, which is not shipped.
    if (base === 'zh' && /-(TW|HK|MO|Hant)/i.test(tag)) continue;
    const sameLanguage = LANGUAGE_CODES.find((code) => code.split('-')[0] === base);
    if (sameLanguage) return sameLanguage;
  }
  return 'en';
}

/** The language to open in before anyone has said: the last one chosen on this device, else the browser's. */
export function initialLanguage(): Language {
  const stored = typeof localStorage === 'undefined' ? null : localStorage.getItem(STORED);
  if (isLanguage(stored)) return stored;
  return closestLanguage(typeof navigator === 'undefined' ? [] : navigator.languages);
}

export const directionOf = (language: Language): 'rtl' | 'ltr' => (RIGHT_TO_LEFT.has(language) ? 'rtl' : 'ltr');

/** Loads a language's catalogue and switches the interface to it; `<html lang dir>` follow; this device remembers it. */
export async function activateLanguage(language: Language): Promise<void> {
  if (i18n.locale !== language) {
    const { messages } = (await import(`./locales/${language}.po`)) as { messages: Record<string, string> };
    i18n.loadAndActivate({ locale: language, messages });
  }
  document.documentElement.lang = language;
  document.documentElement.dir = directionOf(language);
  try {
    localStorage.setItem(STORED, language);
  } catch {
    // Private windows may refuse storage: the language still holds for this visit.
  }
}

export { i18n };
