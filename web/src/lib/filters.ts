import { BOOK_FILTER_FIELDS, FILTER_FIELDS, type LibrarySearch } from './library-search';

/** A leaf of the spec's condition tree: `{genre: {operator: 'is', value: 'Action'}}`. */
export type Leaf = Record<string, { operator: 'is' | 'isNot' | 'isNull' | 'isNotNull' | 'contains' | 'beginsWith'; value?: string }>;
export type Condition = Leaf | { allOf: Condition[] } | { anyOf: Condition[] };

const is = (field: string, value: string): Leaf => ({ [field]: { operator: 'is', value } });

/** One field's chips: any of its values (a single value stays a plain leaf). */
function anyOfValues(field: string, values: string[]): Condition | null {
  if (values.length === 0) return null;
  if (values.length === 1) return is(field, values[0] as string);
  return { anyOf: values.map((v) => is(field, v)) };
}

/**
 * Compiles the grid's chips to the body's condition tree: each field's values are OR-ed, the fields are
 * AND-ed (`match: all`) or OR-ed (`match: any`), and the library, when the grid shows one, always holds.
 * Returns undefined when nothing narrows the list.
 */
export function buildCondition(search: LibrarySearch, scope: { libraryId?: string }): Condition | undefined {
  const fields = search.view === 'books' ? BOOK_FILTER_FIELDS : FILTER_FIELDS;
  const groups: Condition[] = [];
  for (const field of fields) {
    const group = anyOfValues(field, search[field]);
    if (group) groups.push(group);
  }
  const read = anyOfValues('readStatus', search.read);
  if (read) groups.push(read);

  let chips: Condition | null = null;
  if (groups.length === 1) chips = groups[0] as Condition;
  else if (groups.length > 1) chips = search.match === 'any' ? { anyOf: groups } : { allOf: groups };

  const library = scope.libraryId ? is('libraryId', scope.libraryId) : null;
  if (library && chips) return { allOf: [library, chips] };
  return library ?? chips ?? undefined;
}
