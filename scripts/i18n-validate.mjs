// Checks translated catalogues (`node scripts/i18n-validate.mjs [web/src/locales/fr.po …]`, all but English by
// default; also run by scripts/i18n-check.mjs): every translation parses as an ICU message, keeps the English one's
// variables and numbered tags, and gives the plural forms its language has (CLDR, through Intl.PluralRules).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from '@messageformat/parser';
import PO from 'pofile';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const locales = path.join(root, 'web', 'src', 'locales');

/** Variables, numbered tags and plural/select arguments of a message; plural keys per argument. */
function shape(message) {
  const variables = new Set();
  const plurals = new Map();
  const walk = (tokens) => {
    for (const token of tokens) {
      if (token.type === 'argument') variables.add(token.arg);
      else if (token.type === 'function') variables.add(token.arg);
      else if (token.type === 'plural' || token.type === 'select' || token.type === 'selectordinal') {
        variables.add(token.arg);
        if (token.type === 'plural')
          plurals.set(
            token.arg,
            token.cases.map((c) => c.key),
          );
        for (const c of token.cases) walk(c.tokens);
      }
    }
  };
  walk(parse(message, { strict: false }));
  const tags = [...message.matchAll(/<\/?(\d+)\/?>/g)].map((m) => m[0]).sort();
  return { variables: [...variables].sort(), plurals, tags };
}

export function validate(file) {
  const locale = path.basename(file, '.po');
  const categories = new Set(new Intl.PluralRules(locale).resolvedOptions().pluralCategories);
  const problems = [];
  const po = PO.parse(readFileSync(file, 'utf8'));
  for (const item of po.items) {
    if (item.obsolete) continue;
    const source = item.msgid;
    const text = item.msgstr.join('');
    if (!text.trim()) continue; // reported as untranslated by the check
    const where = `${path.basename(file)}: "${source.slice(0, 60)}"`;
    let want;
    let got;
    try {
      want = shape(source);
    } catch {
      continue; // an English message Lingui writes in its own syntax
    }
    try {
      got = shape(text);
    } catch (err) {
      problems.push(`${where}: the translation is not a valid message (${err.message})`);
      continue;
    }
    if (want.variables.join() !== got.variables.join())
      problems.push(`${where}: variables {${want.variables.join('}, {')}} in English, {${got.variables.join('}, {')}} in the translation`);
    if (want.tags.join() !== got.tags.join())
      problems.push(`${where}: tags ${want.tags.join(' ')} in English, ${got.tags.join(' ')} in the translation`);
    for (const [arg, keys] of got.plurals) {
      const named = keys.filter((k) => !k.startsWith('='));
      const unknown = named.filter((k) => !categories.has(k));
      const missing = [...categories].filter((c) => !named.includes(c));
      if (unknown.length > 0) problems.push(`${where}: plural {${arg}} has forms ${unknown.join(', ')}, which ${locale} does not use`);
      if (missing.length > 0) problems.push(`${where}: plural {${arg}} lacks the ${locale} forms ${missing.join(', ')}`);
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files =
    process.argv.length > 2
      ? process.argv.slice(2)
      : readdirSync(locales)
          .filter((f) => f.endsWith('.po') && f !== 'en.po')
          .map((f) => path.join(locales, f));
  const problems = files.flatMap(validate);
  if (problems.length > 0) {
    console.error(`${problems.length} problem(s):\n- ${problems.join('\n- ')}`);
    process.exit(1);
  }
  console.log(
    `${files.length} catalogue(s): every translation is a valid message with the English one's variables, tags and this language's plural forms`,
  );
}
