import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz } from '../media/fixtures.js';
import { api, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { testDatabaseType } from '../helpers/config.js';

let t: CatalogTestApp;
beforeAll(async () => {
  t = await createCatalogApp();
  await scannedLibrary(t, async (dir) => {
    await makeCbz(dir, 'Amélie/Amélie 01.cbz', { pages: 1, comicInfo: { Genre: 'Mystère, Drame' } });
    // A folder named on macOS: "e" followed by a combining acute accent (NFD).
    await makeCbz(dir, 'Poke\u0301mon/Poke\u0301mon 01.cbz', { pages: 1 });
    await makeCbz(dir, 'Saga/Saga 01.cbz', { pages: 1, comicInfo: { Genre: 'Drama' } });
  });
});
afterAll(() => t.close());

const names = async (condition: unknown) =>
  (await api<Paged<{ name: string }>>(t, 'POST', '/api/v1/series/list', { condition })).body.data
    .map((s) => s.name.normalize('NFC'))
    .sort();

describe('text filters beyond ASCII', () => {
  it('fold case in names and list values (AMÉLIE finds Amélie, MYSTÈRE finds Mystère)', async () => {
    expect(await names({ name: { operator: 'contains', value: 'AMÉLIE' } })).toEqual(['Amélie']);
    expect(await names({ name: { operator: 'is', value: 'amÉlie' } })).toEqual(['Amélie']);
    expect(await names({ genre: { operator: 'is', value: 'MYSTÈRE' } })).toEqual(['Amélie']);
    expect(await names({ genre: { operator: 'contains', value: 'YSTÈ' } })).toEqual(['Amélie']);
    expect(await names({ genre: { operator: 'contains', value: 'DRAM' } })).toEqual(['Amélie', 'Saga']);
  });

  it.runIf(testDatabaseType() === 'sqlite')('match a name written with combining accents (NFD) when typed composed (NFC)', async () => {
    expect(await names({ name: { operator: 'contains', value: 'Pokémon' } })).toEqual(['Pokémon']);
    expect(await names({ name: { operator: 'beginsWith', value: 'POKÉ' } })).toEqual(['Pokémon']);
  });
});
