/** `npm run bench`: runs every benchmark that exists and prints its table. */
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

if (benches.length === 0) {
  console.log('No benchmark exists yet: the media, scanning, browsing and OPDS work adds them here.');
}
for (const bench of benches) {
  console.log(`\n== ${bench.name} ==`);
  await (await bench.load()).run();
}
