import { gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

interface ChunkLike {
  type: 'chunk' | 'asset';
  fileName: string;
  name?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  code?: string;
  source?: string | Uint8Array;
}

const kB = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;

/**
 * Prints every JavaScript and CSS file with its gzip size after `vite build`, and fails the build when the
 * first screen (the entry chunk plus the chunks it imports statically, which the browser must fetch before
 * anything shows) exceeds the budget. Lazily imported screens do not count.
 */
export interface RouteBudget {
  /** What the report calls it. */
  label: string;
  /** The name of the lazily imported chunk that starts the route (its module's file name without extension). */
  chunk: string;
  budgetBytes: number;
}

/**
 * Also, for each route budget: the route's chunk and the chunks it imports statically that the first screen
 * does not already load (what opening that route downloads), against its own budget. Chunks the route imports
 * lazily (the EPUB engine from the reader) do not count.
 */
export function sizeBudget(budgetBytes: number, routes: RouteBudget[] = []): Plugin {
  return {
    name: 'colophon-size-budget',
    apply: 'build',
    generateBundle(_options, bundle) {
      const files = Object.values(bundle) as unknown as ChunkLike[];
      const gzipped = new Map<string, number>();
      for (const file of files) {
        const content = file.type === 'chunk' ? file.code : file.source;
        if (content === undefined || !/\.(js|css)$/.test(file.fileName)) continue;
        gzipped.set(file.fileName, gzipSync(typeof content === 'string' ? Buffer.from(content) : content, { level: 9 }).length);
      }
      const byName = new Map(files.map((f) => [f.fileName, f]));
      const firstScreen = new Set<string>();
      const visit = (name: string) => {
        if (firstScreen.has(name)) return;
        firstScreen.add(name);
        for (const imported of byName.get(name)?.imports ?? []) visit(imported);
      };
      for (const file of files) if (file.type === 'chunk' && file.isEntry) visit(file.fileName);
      const firstScreenJs = [...firstScreen].reduce((sum, name) => sum + (gzipped.get(name) ?? 0), 0);

      const rows = [...gzipped.entries()].sort((a, b) => b[1] - a[1]);
      const width = Math.max(...rows.map(([name]) => name.length), 10);
      console.warn('\ngzip sizes (* = first screen):');
      for (const [name, size] of rows)
        console.warn(`  ${firstScreen.has(name) ? '*' : ' '} ${name.padEnd(width)} ${kB(size).padStart(10)}`);
      console.warn(`  first screen JavaScript: ${kB(firstScreenJs)} of ${kB(budgetBytes)} budget\n`);
      if (firstScreenJs > budgetBytes) {
        this.error(`first screen JavaScript is ${kB(firstScreenJs)} gzip, over the ${kB(budgetBytes)} budget`);
      }
      for (const route of routes) {
        const start = files.find((f) => f.type === 'chunk' && f.isDynamicEntry && f.name === route.chunk);
        if (!start) this.error(`no lazily imported chunk called ${route.chunk} for the ${route.label} budget`);
        const own = new Set<string>();
        const walk = (name: string) => {
          if (own.has(name) || firstScreen.has(name)) return;
          own.add(name);
          for (const imported of byName.get(name)?.imports ?? []) walk(imported);
        };
        walk(start.fileName);
        const js = [...own].filter((n) => n.endsWith('.js')).reduce((sum, n) => sum + (gzipped.get(n) ?? 0), 0);
        console.warn(
          `  ${route.label} route JavaScript (on top of the first screen): ${kB(js)} of ${kB(route.budgetBytes)} budget [${[...own].join(', ')}]`,
        );
        if (js > route.budgetBytes)
          this.error(`${route.label} route JavaScript is ${kB(js)} gzip, over the ${kB(route.budgetBytes)} budget`);
      }
    },
  };
}
