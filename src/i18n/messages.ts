import { readFileSync } from 'node:fs';
import PO from 'pofile';
import type { Language } from './languages.js';

/**
 * The server's message catalogue (issue 53). Its source language is the English the code is written in: a
 * message's English text *is* its id (gettext's way, which Weblate reads as PO), with `{0}`, `{1}`… where the code
 * puts a value (Python brace format; a literal brace is doubled). `npm run i18n:extract` rebuilds the catalogue
 * from the code (scripts/server-i18n.mjs); `npm run i18n:check` (part of lint) fails when they differ.
 *
 * Two ways in:
 * - `textIn(language, template, values)` for texts written for a person where the language is known (feed titles,
 *   e-mails);
 * - `localize(language, message)` for an error message thrown in English deep below a route: the error handler
 *   finds the template it was made from (its literal parts around the values) and renders that template's
 *   translation with the same values. Values that are themselves catalogue texts (`notFound('Series')` → "Series
 *   not found") are translated too.
 */

interface Template {
  readonly id: string;
  readonly pattern: RegExp;
  /** Characters outside the placeholders: the most specific template is tried first. */
  readonly literalLength: number;
}

interface Catalogue {
  readonly translations: ReadonlyMap<string, string>;
}

const LOCALES = new URL('./locales/', import.meta.url);
const PLACEHOLDER = /\{\{|\}\}|\{(\d+)\}/g;

/** Marks an English text the catalogue translates where it is not written as a call below (a constant). */
export const phrase = (english: string): string => english;

/**
 * Marks an English template the catalogue translates, filled later with `fill` (and localised whole by `localize`):
 * `{0}`, `{1}`… are its values and `{{`, `}}` literal braces, as the catalogue writes them.
 */
export const sentence = (template: string): string => template;

/** Fills a template's placeholders; `{{` and `}}` are literal braces. */
export function fill(template: string, values: readonly unknown[] = []): string {
  return template.replace(PLACEHOLDER, (token, index: string | undefined) => {
    if (index === undefined) return token[0]!;
    const value = values[Number(index)];
    return value === undefined ? token : String(value);
  });
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function templateOf(id: string): Template | undefined {
  let source = '';
  let literal = '';
  let last = 0;
  let placeholders = 0;
  for (const match of id.matchAll(PLACEHOLDER)) {
    const text = id.slice(last, match.index) + (match[1] === undefined ? match[0][0] : '');
    source += escapeRegExp(text);
    literal += text;
    if (match[1] !== undefined) {
      source += `(?<p${match[1]}>[\\s\\S]*?)`;
      placeholders += 1;
    }
    last = match.index + match[0].length;
  }
  const tail = id.slice(last);
  source += escapeRegExp(tail);
  literal += tail;
  // "{0}" alone, or "{0}: {1}", would match anything: such a template is rendered, never recognised.
  if (placeholders === 0 || literal.replace(/[\s\p{P}]/gu, '').length < 3) return undefined;
  return { id, pattern: new RegExp(`^${source}$`), literalLength: literal.length };
}

interface Source {
  readonly ids: ReadonlySet<string>;
  /** The texts without placeholders, as the code writes them (literal braces single), to their ids. */
  readonly plain: ReadonlyMap<string, string>;
  readonly templates: readonly Template[];
}

let source: Source | undefined;
const catalogues = new Map<Language, Catalogue>();

function readPo(language: string): PO {
  return PO.parse(readFileSync(new URL(`${language}.po`, LOCALES), 'utf8'));
}

function sourceCatalogue(): Source {
  if (!source) {
    const ids = new Set(readPo('en').items.map((item) => item.msgid));
    const plain = new Map([...ids].filter((id) => !/\{\d+\}/.test(id)).map((id) => [fill(id), id]));
    const templates = [...ids]
      .map(templateOf)
      .filter((t): t is Template => t !== undefined)
      // The most specific first; of two as specific, the one that wraps a value ("{0} not found" before
      // "Directory {0}": notFound(`Directory ${path}`) applied the first last).
      .sort((a, b) => b.literalLength - a.literalLength || Number(b.id.startsWith('{')) - Number(a.id.startsWith('{')));
    source = { ids, plain, templates };
  }
  return source;
}

function catalogueOf(language: Language): Catalogue {
  let catalogue = catalogues.get(language);
  if (!catalogue) {
    const translations = new Map<string, string>();
    for (const item of readPo(language).items) {
      const text = item.msgstr[0];
      if (text && !item.obsolete) translations.set(item.msgid, text);
    }
    catalogue = { translations };
    catalogues.set(language, catalogue);
  }
  return catalogue;
}

/** A template in `language`, its placeholders filled; English (the template itself) where no translation exists. */
export function textIn(language: Language, template: string, values: readonly unknown[] = []): string {
  const translated = language === 'en' ? undefined : catalogueOf(language).translations.get(template);
  return fill(translated ?? template, values);
}

/** An English message made from one of the catalogue's templates, said in `language`; as it came when none fits. */
export function localize(language: Language, message: string, depth = 0): string {
  if (language === 'en' || !message) return message;
  const { translations } = catalogueOf(language);
  const { plain, templates } = sourceCatalogue();
  const id = plain.get(message);
  if (id !== undefined) {
    const exact = translations.get(id);
    return exact ? fill(exact) : message;
  }
  if (depth > 1) return message;
  for (const template of templates) {
    const match = template.pattern.exec(message);
    if (!match) continue;
    const translated = translations.get(template.id);
    if (!translated) return message;
    const values = Object.entries(match.groups ?? {}).reduce<string[]>((all, [name, value]) => {
      all[Number(name.slice(1))] = localize(language, value, depth + 1);
      return all;
    }, []);
    return fill(translated, values);
  }
  return message;
}

/** For tests: whether the English catalogue holds a text (so a message the code writes is translatable). */
export const isCatalogued = (id: string): boolean => sourceCatalogue().ids.has(id);
