import babel from 'vite-plugin-babel';
import type { Plugin } from 'vite';

/**
 * Lingui's macros (`<Trans>`, `t`, `plural`, `msg`) compiled by Babel before Vite's own TypeScript and JSX transform:
 * Babel only parses TypeScript and JSX here and rewrites the macros into message ids and `i18n._` calls.
 * (Vite 8's React plugin has no Babel step of its own; @rolldown/plugin-babel needs Node 22.)
 */
export function linguiMacros(): Plugin {
  const plugin = babel({
    include: /web\/src\/.*\.tsx?$/,
    exclude: /schema\.gen\.ts$/,
    babelConfig: {
      babelrc: false,
      configFile: false,
      parserOpts: { plugins: ['typescript', 'jsx'] },
      plugins: ['@lingui/babel-plugin-lingui-macro'],
    },
  });
  return { ...plugin, enforce: 'pre' };
}
