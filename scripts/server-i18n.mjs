// The server's message catalogue (src/i18n/locales/*.po, issue 53), kept equal to what the code says.
//   node scripts/server-i18n.mjs --write   rebuilds en.po from the code and adds/drops entries in every locale
//   node scripts/server-i18n.mjs --check   fails (exit 1) when en.po is not what the code says, or a locale misses,
//                                          keeps extra, leaves untranslated or changes the placeholders of a message
// A message is a string or template literal in the message place of `new AppError(status, code, message)`,
// `badRequest/conflict/forbidden/unauthorized/notFound(message)`, `errorBody(code, message)`,
// `textIn(language, message)`, `phrase(message)` or `sentence(template)`; `${…}` becomes {0}, {1}… and a literal brace is doubled
// (`textIn`, `say` and `sentence` take templates already written so)
// (Python brace format, which Weblate checks). Both branches of `a ? 'x' : 'y'` are messages.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import PO from 'pofile';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// COLOPHON_I18N_SRC: another copy of src/ to check (the test that shows the check failing on a new message).
const srcDir = process.env.COLOPHON_I18N_SRC ? path.resolve(process.env.COLOPHON_I18N_SRC) : path.join(root, 'src');
const localesDir = path.join(srcDir, 'i18n', 'locales');
const LANGUAGES = ['en', 'fr', 'de', 'es', 'it', 'pt-BR', 'nl', 'pl', 'ja', 'zh-Hans', 'ko', 'ar'];
const TEMPLATE_TAKERS = new Set(['textIn', 'say', 'sentence']);
const MESSAGE_ARGUMENT = new Map([
  ['badRequest', 0],
  ['conflict', 0],
  ['forbidden', 0],
  ['unauthorized', 0],
  ['notFound', 0],
  ['phrase', 0],
  ['sentence', 0],
  ['errorBody', 1],
  ['textIn', 1],
  ['say', 1],
  // Local helpers that pass their argument on as the message (libraries/paths.ts, protocols/komga/list-routes.ts).
  ['refuse', 0],
  ['ours', 1],
]);

const escapeBraces = (text) => text.replace(/[{}]/g, (b) => b + b);

/**
 * The message ids an expression can produce (several for a conditional), or none when it is not literal.
 * `template`: the literal is already a template (textIn, say), its braces are placeholders.
 */
function idsOf(node, template = false) {
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node)) return idsOf(node.expression, template);
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [template ? node.text : escapeBraces(node.text)];
  if (ts.isConditionalExpression(node)) return [...idsOf(node.whenTrue, template), ...idsOf(node.whenFalse, template)];
  if (ts.isTemplateExpression(node)) {
    let id = escapeBraces(node.head.text);
    node.templateSpans.forEach((span, index) => {
      id += `{${index}}${escapeBraces(span.literal.text)}`;
    });
    return [id];
  }
  return [];
}

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** id → the places (file:line) the code writes it. */
export function extract() {
  const found = new Map();
  for (const file of sourceFiles(srcDir)) {
    const text = readFileSync(file, 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      let argument;
      let template = false;
      if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'AppError')
        argument = node.arguments?.[2];
      else if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && MESSAGE_ARGUMENT.has(node.expression.text))
        argument = node.arguments[MESSAGE_ARGUMENT.get(node.expression.text)];
      if (argument && ts.isCallExpression(node)) template = TEMPLATE_TAKERS.has(node.expression.text);
      if (argument) {
        const line = sf.getLineAndCharacterOfPosition(argument.getStart(sf)).line + 1;
        for (const id of idsOf(argument, template)) {
          // A bare "{0}" (a message passed through) is not a text of its own.
          if (id.replace(/\{\d+\}/g, '').trim() === '') continue;
          if (!found.has(id)) found.set(id, []);
          found.get(id).push(`src/${path.relative(srcDir, file).replace(/\\/g, '/')}:${line}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return found;
}

const placeholders = (text) =>
  [...text.matchAll(/\{\{|\}\}|\{(\d+)\}/g)]
    .filter((m) => m[1] !== undefined)
    .map((m) => m[1])
    .sort()
    .join(',');
const file = (language) => path.join(localesDir, `${language}.po`);

function readCatalogue(language) {
  try {
    return PO.parse(readFileSync(file(language), 'utf8'));
  } catch (err) {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  }
}

function render(language, found, translations) {
  const po = new PO();
  po.headers = { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Transfer-Encoding': '8bit', Language: language };
  for (const id of [...found.keys()].sort()) {
    const item = new PO.Item();
    item.msgid = id;
    item.msgstr = [language === 'en' ? id : (translations.get(id) ?? '')];
    item.references = [...new Set(found.get(id))];
    if (/\{\d+\}|\{\{|\}\}/.test(id)) item.flags = { 'python-brace-format': true };
    po.items.push(item);
  }
  return `${po.toString()}\n`;
}

const translationsOf = (po) => new Map((po?.items ?? []).filter((i) => !i.obsolete).map((i) => [i.msgid, i.msgstr[0] ?? '']));

export function check(found = extract()) {
  const problems = [];
  const en = readCatalogue('en');
  if (!en) return ['src/i18n/locales/en.po is missing: run npm run i18n:extract'];
  const committed = new Set(en.items.map((i) => i.msgid));
  const missing = [...found.keys()].filter((id) => !committed.has(id));
  const stale = [...committed].filter((id) => !found.has(id));
  if (missing.length)
    problems.push(
      `server en.po: ${missing.length} message(s) in the code are not in the catalogue: ${missing
        .slice(0, 5)
        .map((m) => JSON.stringify(m))
        .join(', ')}`,
    );
  if (stale.length)
    problems.push(
      `server en.po: ${stale.length} entr(ies) the code no longer has: ${stale
        .slice(0, 5)
        .map((m) => JSON.stringify(m))
        .join(', ')}`,
    );
  for (const language of LANGUAGES.slice(1)) {
    const po = readCatalogue(language);
    if (!po) {
      problems.push(`server ${language}.po is missing`);
      continue;
    }
    const translations = translationsOf(po);
    const absent = [...found.keys()].filter((id) => !translations.has(id));
    const extra = [...translations.keys()].filter((id) => !found.has(id));
    const empty = [...found.keys()].filter((id) => translations.get(id)?.trim() === '');
    const broken = [...found.keys()].filter((id) => translations.get(id) && placeholders(translations.get(id)) !== placeholders(id));
    if (absent.length)
      problems.push(
        `server ${language}.po: ${absent.length} message(s) missing: ${absent
          .slice(0, 3)
          .map((m) => JSON.stringify(m))
          .join(', ')}`,
      );
    if (extra.length)
      problems.push(
        `server ${language}.po: ${extra.length} entr(ies) the code no longer has: ${extra
          .slice(0, 3)
          .map((m) => JSON.stringify(m))
          .join(', ')}`,
      );
    if (empty.length)
      problems.push(
        `server ${language}.po: ${empty.length} message(s) not translated: ${empty
          .slice(0, 3)
          .map((m) => JSON.stringify(m))
          .join(', ')}`,
      );
    if (broken.length)
      problems.push(
        `server ${language}.po: ${broken.length} translation(s) with other placeholders than the English: ${broken
          .slice(0, 3)
          .map((m) => JSON.stringify(m))
          .join(', ')}`,
      );
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const found = extract();
  if (process.argv.includes('--write')) {
    for (const language of LANGUAGES) writeFileSync(file(language), render(language, found, translationsOf(readCatalogue(language))));
    console.log(`server catalogue: ${found.size} messages in ${LANGUAGES.length} languages (src/i18n/locales)`);
  } else {
    const problems = check(found);
    for (const problem of problems) console.error(problem);
    if (problems.length) {
      console.error('Fix with npm run i18n:extract, then translate what it added.');
      process.exit(1);
    }
    console.log(`server catalogue: ${found.size} messages, all ${LANGUAGES.length - 1} translations complete`);
  }
}
