// `npm run i18n:check` (part of `npm run lint`, so CI runs it): the message catalogues are what the source says.
// It extracts the web app's messages into a copy of web/src/locales and compares: a message in the source that the
// committed catalogues lack (not extracted), or a catalogue entry the source no longer has, fails; so does a shipped
// language with an untranslated message. The committed files are never touched. Fix with `npm run i18n:extract`,
// then translate what it added.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import PO from 'pofile';
import { validate } from './i18n-validate.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const committed = path.join(root, 'web', 'src', 'locales');
const work = mkdtempSync(path.join(os.tmpdir(), 'colophon-i18n-check-'));

/** Entries of a PO file as `context\u0004msgid` → msgstr (the header and the creation date are not compared). */
function entries(file) {
  const po = PO.parse(readFileSync(file, 'utf8'));
  return new Map(po.items.filter((i) => !i.obsolete).map((i) => [`${i.msgctxt ?? ''}\u0004${i.msgid}`, i.msgstr.join('')]));
}
const shown = (key) => {
  const [context, id] = key.split('\u0004');
  return context ? `"${id}" (context ${context})` : `"${id}"`;
};

const problems = [];
try {
  const copy = path.join(work, 'locales');
  cpSync(committed, copy, { recursive: true });
  const config = path.join(work, 'lingui.config.ts');
  writeFileSync(
    config,
    `import base from ${JSON.stringify(path.join(root, 'lingui.config.ts'))};\n` +
      `export default { ...base, rootDir: ${JSON.stringify(root)}, catalogs: base.catalogs.map((c) => ({ ...c, path: ${JSON.stringify(`${copy}/{locale}`)} })) };\n`,
  );
  execFileSync(path.join(root, 'node_modules', '.bin', 'lingui'), ['extract', '--clean', '--config', config], { cwd: root, stdio: 'pipe' });
  const locales = readdirSync(copy).filter((f) => f.endsWith('.po'));
  for (const file of locales) {
    const before = entries(path.join(committed, file));
    const after = entries(path.join(copy, file));
    const missing = [...after.keys()].filter((k) => !before.has(k));
    const stale = [...before.keys()].filter((k) => !after.has(k));
    if (missing.length > 0)
      problems.push(
        `${file}: ${missing.length} message(s) in the source are not in the catalogue: ${missing.slice(0, 5).map(shown).join(', ')}`,
      );
    if (stale.length > 0)
      problems.push(`${file}: ${stale.length} entr(ies) the source no longer has: ${stale.slice(0, 5).map(shown).join(', ')}`);
    if (file !== 'en.po') {
      problems.push(...validate(path.join(committed, file)));
      const untranslated = [...before.entries()].filter(([k, v]) => after.has(k) && v.trim() === '').map(([k]) => k);
      if (untranslated.length > 0)
        problems.push(`${file}: ${untranslated.length} message(s) not translated: ${untranslated.slice(0, 5).map(shown).join(', ')}`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (problems.length > 0) {
  console.error(
    `The message catalogues do not match the source (run \`npm run i18n:extract\`, then translate):\n- ${problems.join('\n- ')}`,
  );
  process.exit(1);
}
console.log('i18n: every message is extracted and translated in every shipped language');
