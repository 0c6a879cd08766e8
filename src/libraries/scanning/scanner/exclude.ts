import path from 'node:path';
import { BOOK_EXTENSIONS } from '../../../media/formats/detect.js';

/**
 * A library's `scanning_config.exclude` globs, matched against paths relative to the library folder (`/`
 * separators). Small on purpose: `**` (any folders, also none), `*` (within a name), `?` (one character) and
 * `{a,b}` alternatives are what people write for "extras", "samples" or temporary files; no glob package is a
 * production dependency, and Node 20's `path.matchesGlob` is experimental (it warns on first use).
 */
function globSource(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      const slashAfter = glob[i + 2] === '/';
      const atSegmentStart = i === 0 || glob[i - 1] === '/';
      if (atSegmentStart && slashAfter) {
        out += '(?:[^/]*/)*'; // "**/": any number of folders, also none
        i += 2;
      } else {
        out += '.*';
        i += 1;
      }
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '{') {
      const end = glob.indexOf('}', i);
      if (end < 0) throw new Error(`"${glob}": "{" without "}"`);
      out += `(?:${glob
        .slice(i + 1, end)
        .split(',')
        .map((alt) => globSource(alt))
        .join('|')})`;
      i = end;
    } else out += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return out;
}

export function compileGlob(glob: string): RegExp {
  // A pattern ending in "/**" also matches the folder itself; a leading "/" anchors at the library root like none.
  return new RegExp(`^${globSource(glob.replace(/^\/+/, ''))}$`, 'i');
}

/** Why a glob cannot be used, or null. */
export function globError(glob: string): string | null {
  try {
    compileGlob(glob);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** The first of `globs` that `relPath` (or one of its folders) matches, or null. */
export function excludedBy(globs: readonly { glob: string; re: RegExp }[], relPath: string): string | null {
  if (globs.length === 0) return null;
  const parts = relPath.split('/');
  for (const { glob, re } of globs) {
    for (let n = parts.length; n > 0; n--) if (re.test(parts.slice(0, n).join('/'))) return glob;
  }
  return null;
}

export type ExcludeRules = readonly { glob: string; re: RegExp }[];

export function excludeRules(globs: readonly string[]): ExcludeRules {
  const rules: { glob: string; re: RegExp }[] = [];
  for (const glob of globs) {
    try {
      rules.push({ glob, re: compileGlob(glob) });
    } catch {
      continue; // refused when the configuration was saved; an older stored value is ignored
    }
  }
  return rules;
}

/** Why a path under a library is not one of its book files by the library's rules alone, or null when it could be. */
export type PathRule =
  { rule: 'hidden'; part: string } | { rule: 'excluded'; glob: string } | { rule: 'unsupported_extension'; extension: string };

export function pathRule(relPath: string, rules: ExcludeRules): PathRule | null {
  for (const part of relPath.split('/')) {
    if (part.startsWith('.') || part === '__MACOSX') return { rule: 'hidden', part };
  }
  const glob = excludedBy(rules, relPath);
  if (glob) return { rule: 'excluded', glob };
  const extension = path.posix.extname(relPath).toLowerCase();
  // .cb7/.7z are book extensions: such a file becomes a book whose analysis says it is unsupported.
  if (!BOOK_EXTENSIONS.has(extension)) return { rule: 'unsupported_extension', extension };
  return null;
}
