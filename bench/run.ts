/**
 * `npm run bench`: the server measured from outside, as users run it, beside floors from the same run
 * (bench/outside.ts; `--books 10000` for the large library, `--seconds N`, `--json FILE`, `--only pages|lists`). Its HTTP
 * load client is wrk (`apt-get install wrk`; bench/wrk.ts), as for the browse and OPDS loads of `--in-process`.
 * `npm run bench -- --start`: where `npm start` spends its time (bench/start-time.ts).
 * `npm run bench -- --web`: the web app's home page and 10,000-series grid in Chromium (bench/web.ts).
 * `npm run bench -- --match`: identification's decisions over the labelled folder names and recorded candidate lists
 * (precision of automatic matches, shares applied, to review, wrong; bench/match.ts); `--identify`: 1,000 series
 * identified with a warm cache, and page serving during it (bench/identify.ts).
 * `npm run bench -- --backup`: backup and restore of a 10,000-book library with 5 readers' history, and page serving
 * during backups (bench/backup.ts).
 * `npm run bench -- --metadata`: one bulk metadata edit of 1,000 series over HTTP, and its undo (bench/metadata-bulk.ts).
 * `npm run bench -- --watch`: folder watching: events → book visible for 1 and 100 copied files, and the watcher's idle
 * CPU and RSS on a 10,000-book library (`--books N`, `--runs R`, `--idle-seconds S`; bench/watch.ts).
 * `npm run bench -- --in-process`: the older in-process benchmarks (media, scan, browse, OPDS), which compare
 * against floors inside the server's own process and so hide the framework's cost.
 */
const argv = process.argv.slice(2);

if (argv.includes('--match')) {
  (await import('./match.js')).run(argv);
} else if (argv.includes('--identify')) {
  await (await import('./identify.js')).run(argv);
} else if (argv.includes('--backup')) {
  await (await import('./backup.js')).run(argv);
} else if (argv.includes('--web')) {
  await (await import('./web.js')).run(argv.filter((a) => a !== '--web'));
} else if (argv.includes('--metadata')) {
  await (await import('./metadata-bulk.js')).run();
} else if (argv.includes('--watch')) {
  await (await import('./watch.js')).run(argv.filter((a) => a !== '--watch'));
} else if (argv.includes('--start')) {
  await import('./start-time.js').then((m) => m.main());
} else if (argv.includes('--in-process')) {
  const benches: Array<{ name: string; load: () => Promise<{ run: () => Promise<unknown> }> }> = [
    {
      name: 'media (CBZ listing, page reads, resizing)',
      load: async () => {
        const media = await import('./media.js');
        return { run: async () => console.log(media.formatMediaBench(await media.runMediaBench())) };
      },
    },
    { name: 'scan (libraries, scanner, tasks)', load: () => import('./scan.js') },
    { name: 'browse (series/books lists, search, On Deck, pages)', load: () => import('./browse.js') },
    { name: 'opds feeds', load: () => import('./opds.js') },
  ];
  for (const bench of benches) {
    console.log(`\n== ${bench.name} ==`);
    await (await bench.load()).run();
  }
} else {
  await (await import('./outside.js')).run(argv);
}
