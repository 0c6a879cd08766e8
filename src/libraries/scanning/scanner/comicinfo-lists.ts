import { parseJsonColumn } from '../../../db/json-column.js';
import { listNameKey } from '../../../lists/index.js';
import { listMembershipsOf } from '../../../media/metadata/metadata.js';
import { numberSortOf } from '../../../media/metadata/metadata-values.js';

/**
 * The shared lists scans make from ComicInfo, planned without the database: a collection for each `SeriesGroup`
 * name (the series whose present books carry it) and a read list for each `StoryArc` / `AlternateSeries` name (the
 * present books that carry it, in arc order). list-repository.ts reads the books and the lists and applies the plan.
 */

/** A present book that belongs to at least one list, with what orders it. */
export interface ListSourceBook {
  id: string;
  series_id: string;
  /** The book's stored metadata record (JSON). */
  metadata: string;
  number_sort: number | null;
  title: string;
  /** Its series' sort name. */
  series_sort: string;
}

/** A list as the books make it: members in order (series ids for a collection, book ids for a read list). */
export interface WantedList {
  key: string;
  name: string;
  members: string[];
}

/** A shared list as it is now. */
export interface ExistingList {
  id: string;
  name: string;
  name_key: string;
  source: string;
  edited: number;
  created_at: string;
  /** Its cover (a member series or book), if one was chosen. */
  cover: string | null;
}

export interface ListsPlan {
  create: WantedList[];
  /** Scan-made lists whose members or name are no longer what the books say. */
  update: Array<{
    id: string;
    name: string;
    /** The members in order, when they changed (else null). */
    members: string[] | null;
    /** The cover left the list. */
    clearCover: boolean;
  }>;
  /** Scan-made lists no present book names any more. */
  remove: string[];
  /** Names a person's list holds (made by a person, or a scan-made list changed since): left alone. */
  blocked: string[];
}

/** Several spellings of one name: the one most books use, a tie going to the first in code-point order. */
function spellingOf(counts: Map<string, number>): string {
  let best = '';
  let bestCount = -1;
  for (const [name, count] of counts) {
    if (count > bestCount || (count === bestCount && name < best)) {
      best = name;
      bestCount = count;
    }
  }
  return best;
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
/** Nulls last. */
const compareNumber = (a: number | null, b: number | null): number => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a - b);

interface ArcEntry {
  book: ListSourceBook;
  number: string | null;
  place: number | null;
}

/** Arc order: `StoryArcNumber` by value (as text when it has none, numberless entries last), then series, number, title. */
function compareArcEntries(a: ArcEntry, b: ArcEntry): number {
  return (
    compareNumber(a.place, b.place) ||
    (a.number === b.number ? 0 : a.number === null ? 1 : b.number === null ? -1 : compareText(a.number, b.number)) ||
    compareText(a.book.series_sort, b.book.series_sort) ||
    compareNumber(a.book.number_sort, b.book.number_sort) ||
    compareText(a.book.title, b.book.title) ||
    compareText(a.book.id, b.book.id)
  );
}

/** The collections and read lists the books make, each by name key, members in order. */
export function wantedLists(books: readonly ListSourceBook[]): { collections: WantedList[]; readLists: WantedList[] } {
  const groups = new Map<string, { spellings: Map<string, number>; series: Map<string, string> }>();
  const arcs = new Map<string, { spellings: Map<string, number>; entries: ArcEntry[] }>();
  for (const book of books) {
    const { series_groups, story_arcs } = listMembershipsOf(parseJsonColumn<unknown>(book.metadata, {}));
    for (const raw of series_groups) {
      const name = raw.trim();
      const key = listNameKey(name);
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { spellings: new Map(), series: new Map() }));
      group.spellings.set(name, (group.spellings.get(name) ?? 0) + 1);
      group.series.set(book.series_id, book.series_sort);
    }
    const seen = new Set<string>();
    for (const arc of story_arcs) {
      const name = arc.name.trim();
      const key = listNameKey(name);
      if (seen.has(key)) continue;
      seen.add(key);
      let list = arcs.get(key);
      if (!list) arcs.set(key, (list = { spellings: new Map(), entries: [] }));
      list.spellings.set(name, (list.spellings.get(name) ?? 0) + 1);
      list.entries.push({ book, number: arc.number, place: numberSortOf(arc.number) });
    }
  }
  const collections = [...groups].map(([key, g]) => ({
    key,
    name: spellingOf(g.spellings),
    members: [...g.series].sort(([idA, sortA], [idB, sortB]) => compareText(sortA, sortB) || compareText(idA, idB)).map(([id]) => id),
  }));
  const readLists = [...arcs].map(([key, a]) => ({
    key,
    name: spellingOf(a.spellings),
    members: a.entries.sort(compareArcEntries).map((e) => e.book.id),
  }));
  return { collections, readLists };
}

const sameMembers = (a: readonly (string | null)[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((id, i) => id === b[i]);

/**
 * What to write so that the shared lists match the books: scan-made lists (`source` `comicinfo`, never `edited`)
 * are created, rewritten or removed; a name held by any other shared list (a person's, or a scan-made one a person
 * changed) is left to that list, and no second list of that name is made. `members` holds the current members of
 * the scan-made lists, in order (null: an entry that names no book).
 */
export function planLists(
  wanted: readonly WantedList[],
  existing: readonly ExistingList[],
  members: ReadonlyMap<string, readonly (string | null)[]>,
): ListsPlan {
  const plan: ListsPlan = { create: [], update: [], remove: [], blocked: [] };
  const byKey = new Map<string, ExistingList[]>();
  for (const list of existing) {
    const same = byKey.get(list.name_key) ?? [];
    same.push(list);
    byKey.set(list.name_key, same);
  }
  const managed = (list: ExistingList) => list.source === 'comicinfo' && Number(list.edited) === 0;
  const wantedKeys = new Set<string>();
  for (const want of wanted) {
    wantedKeys.add(want.key);
    const lists = byKey.get(want.key) ?? [];
    if (lists.some((l) => !managed(l))) {
      plan.blocked.push(want.name);
      continue;
    }
    // Oldest first: should two scan-made lists share a name (two scans at once), the others go.
    const [keep, ...extra] = [...lists].sort((a, b) => compareText(a.created_at, b.created_at) || compareText(a.id, b.id));
    plan.remove.push(...extra.map((l) => l.id));
    if (!keep) {
      plan.create.push(want);
      continue;
    }
    const membersChanged = !sameMembers(members.get(keep.id) ?? [], want.members);
    if (keep.name !== want.name || membersChanged)
      plan.update.push({
        id: keep.id,
        name: want.name,
        members: membersChanged ? want.members : null,
        clearCover: membersChanged && keep.cover !== null && !want.members.includes(keep.cover),
      });
  }
  for (const list of existing) if (managed(list) && !wantedKeys.has(list.name_key)) plan.remove.push(list.id);
  return plan;
}
