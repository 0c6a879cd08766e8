import { describe, expect, it } from 'vitest';
import { planLists, wantedLists, type ExistingList, type ListSourceBook } from '../../src/libraries/scanning/scanner/comicinfo-lists.js';

const book = (id: string, series: string, number: number | null, metadata: object): ListSourceBook => ({
  id,
  series_id: `s-${series}`,
  series_sort: series.toLowerCase(),
  number_sort: number,
  title: `${series} ${number ?? ''}`,
  metadata: JSON.stringify(metadata),
});
const arc = (name: string, number: string | null = null) => ({ story_arcs: [{ name, number }] });
const list = (id: string, name: string, more: Partial<ExistingList> = {}): ExistingList => ({
  id,
  name,
  name_key: name.toLowerCase(),
  source: 'comicinfo',
  edited: 0,
  created_at: '2024-01-01T00:00:00.000Z',
  cover: null,
  ...more,
});

describe('Lists from ComicInfo, planned: what the books make', () => {
  it('read lists: numeric arc numbers by value, then other numbers as text, then none; ties by series, number, title', () => {
    const { readLists } = wantedLists([
      book('none-b', 'Beta', 1, arc('Arc')),
      book('ten', 'Alpha', 1, arc('Arc', '10')),
      book('two', 'Alpha', 2, arc('Arc', '2')),
      book('text', 'Alpha', 3, arc('Arc', 'Epilogue')),
      book('none-a2', 'Alpha', 5, arc('arc')),
      book('none-a1', 'Alpha', 4, arc('ARC')),
      book('half', 'Alpha', 6, arc('Arc', '2.5')),
    ]);
    expect(readLists).toEqual([{ key: 'arc', name: 'Arc', members: ['two', 'half', 'ten', 'text', 'none-a1', 'none-a2', 'none-b'] }]);
  });

  it('collections: each series once, by sort name; the name is the spelling most books use; old records name nothing', () => {
    const { collections, readLists } = wantedLists([
      book('1', 'Robin', 1, { series_groups: ['bat family'] }),
      book('2', 'Batman', 1, { series_groups: ['Bat Family'] }),
      book('3', 'Batman', 2, { series_groups: ['Bat Family'] }),
      book('4', 'Old', 1, { title: 'stored before lists existed' }),
    ]);
    expect(collections).toEqual([{ key: 'bat family', name: 'Bat Family', members: ['s-Batman', 's-Robin'] }]);
    expect(readLists).toEqual([]);
  });
});

describe('Lists from ComicInfo, planned: what to write', () => {
  const want = [{ key: 'owls', name: 'Owls', members: ['a', 'b'] }];

  it('creates what is missing; writes nothing for a list already as the books make it', () => {
    expect(planLists(want, [], new Map())).toMatchObject({ create: want, update: [], remove: [] });
    expect(planLists(want, [list('L', 'Owls')], new Map([['L', ['a', 'b']]]))).toEqual({ create: [], update: [], remove: [], blocked: [] });
  });

  it('rewrites changed members (dropping a cover that left), renames a respelt name, removes lists no book names', () => {
    const plan = planLists(
      want,
      [list('L', 'owls', { cover: 'gone' }), list('X', 'Gone Arc')],
      new Map([
        ['L', ['b', 'gone']],
        ['X', ['z']],
      ]),
    );
    expect(plan).toEqual({
      create: [],
      update: [{ id: 'L', name: 'Owls', members: ['a', 'b'], clearCover: true }],
      remove: ['X'],
      blocked: [],
    });
  });

  it("leaves a name to a person's shared list or an edited one, and never touches edited or user lists otherwise", () => {
    const plan = planLists(
      want,
      [list('U', 'Owls', { source: 'user' }), list('E', 'Edited', { edited: 1 }), list('P', 'Mine', { source: 'user' })],
      new Map(),
    );
    expect(plan).toEqual({ create: [], update: [], remove: [], blocked: ['Owls'] });
  });

  it('of two scan-made lists of one name (two scans at once), the older stays', () => {
    const plan = planLists(
      want,
      [list('new', 'Owls', { created_at: '2024-02-01' }), list('old', 'Owls', { created_at: '2024-01-01' })],
      new Map([['old', ['a', 'b']]]),
    );
    expect(plan).toEqual({ create: [], update: [], remove: ['new'], blocked: [] });
  });
});
