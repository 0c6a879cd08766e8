/** The editable fields as the Edit dialog shows them, in groups (the API's names: PATCH /series|books/{id}). */
export type FieldKind = 'text' | 'textarea' | 'number' | 'date' | 'select' | 'words' | 'rows';

/** One input of a list row: a text (or web address) input, or a choice among `options`. */
export interface RowColumn {
  key: string;
  label: string;
  options?: readonly string[];
  /** A web address: checked before saving (the API takes http:// and https:// only). */
  url?: boolean;
}

/** A list of small records (authors, links, alternate titles): one row each, added and removed with buttons. */
export interface RowsSpec {
  /** What one row is, in words ("author"). */
  item: string;
  columns: RowColumn[];
  /** The column a row needs: a row without it is left out when all its texts are blank, else said. */
  needs: string;
}
export type Row = Record<string, string>;

export interface FieldSpec {
  name: string;
  label: string;
  kind: FieldKind;
  options?: ReadonlyArray<readonly [string, string]>;
  /** Cannot be emptied (the API refuses null). */
  required?: boolean;
  rows?: RowsSpec;
}

export interface FieldGroup {
  title: string;
  fields: FieldSpec[];
}

export const AUTHOR_ROLES = ['writer', 'penciller', 'inker', 'colorist', 'letterer', 'cover', 'editor', 'translator'] as const;

/** A list field: rows of `columns`; a row counts once its `needs` column is filled. */
const rowsField = (name: string, label: string, item: string, needs: string, columns: RowColumn[]): FieldSpec => ({
  name,
  label,
  kind: 'rows',
  rows: { item, needs, columns },
});
const AUTHORS = rowsField('authors', 'Authors', 'author', 'name', [
  { key: 'name', label: 'name' },
  { key: 'role', label: 'role', options: AUTHOR_ROLES },
]);
const LINKS = rowsField('links', 'Links', 'link', 'url', [
  { key: 'label', label: 'label' },
  { key: 'url', label: 'web address', url: true },
]);
const ALTERNATE_TITLES = rowsField('alternate_titles', 'Alternate titles', 'alternate title', 'title', [
  { key: 'label', label: 'label' },
  { key: 'title', label: 'title' },
]);

export const SERIES_GROUPS: FieldGroup[] = [
  {
    title: 'Titles',
    fields: [
      { name: 'title', label: 'Title', kind: 'text' },
      { name: 'sort_title', label: 'Sort title', kind: 'text', required: true },
    ],
  },
  {
    title: 'Reading',
    fields: [
      {
        name: 'reading_direction',
        label: 'Reading direction',
        kind: 'select',
        options: [
          ['ltr', 'Left to right'],
          ['rtl', 'Right to left (manga)'],
          ['vertical', 'Vertical'],
          ['webtoon', 'Webtoon'],
        ],
      },
      {
        name: 'status',
        label: 'Status',
        kind: 'select',
        options: [
          ['ongoing', 'Ongoing'],
          ['ended', 'Ended'],
          ['abandoned', 'Abandoned'],
          ['hiatus', 'Hiatus'],
        ],
      },
      { name: 'total_book_count', label: 'Books in all', kind: 'number' },
    ],
  },
  {
    title: 'Description',
    fields: [
      { name: 'summary', label: 'Summary', kind: 'textarea' },
      { name: 'publisher', label: 'Publisher', kind: 'text' },
      { name: 'language', label: 'Language', kind: 'text' },
      { name: 'age_rating', label: 'Age rating', kind: 'text' },
    ],
  },
  {
    title: 'Genres and tags',
    fields: [
      { name: 'genres', label: 'Genres', kind: 'words' },
      { name: 'tags', label: 'Tags', kind: 'words' },
    ],
  },
  { title: 'Alternate titles', fields: [ALTERNATE_TITLES] },
  { title: 'Links', fields: [LINKS] },
];

export const BOOK_GROUPS: FieldGroup[] = [
  {
    title: 'Title and number',
    fields: [
      { name: 'title', label: 'Title', kind: 'text', required: true },
      { name: 'number', label: 'Number', kind: 'text' },
      { name: 'number_sort', label: 'Sort number', kind: 'number' },
    ],
  },
  {
    title: 'Description',
    fields: [
      { name: 'summary', label: 'Summary', kind: 'textarea' },
      { name: 'release_date', label: 'Release date', kind: 'date' },
      { name: 'isbn', label: 'ISBN', kind: 'text' },
    ],
  },
  { title: 'Authors', fields: [AUTHORS] },
  { title: 'Tags', fields: [{ name: 'tags', label: 'Tags', kind: 'words' }] },
  { title: 'Links', fields: [LINKS] },
];

/** Values compare as JSON (lists in order), as the server does. */
export const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** What a form value is sent as: blank text is null (the files' value or none), numbers as numbers. */
export function toApi(spec: FieldSpec, value: unknown): unknown {
  if (spec.kind === 'number') return value === '' || value === null || value === undefined ? null : Number(value);
  if (spec.kind === 'text' || spec.kind === 'textarea' || spec.kind === 'date' || spec.kind === 'select') {
    const text = typeof value === 'string' ? value.trim() : '';
    return text === '' ? null : text;
  }
  if (spec.kind === 'rows') return filledRows(spec.rows!, value as Row[]);
  return value;
}

/** A new row: blank texts, the first option of a choice. */
export const blankRow = (spec: RowsSpec): Row => Object.fromEntries(spec.columns.map((c) => [c.key, c.options?.[0] ?? '']));

/** A list's rows as sent: texts trimmed, rows whose texts are all blank left out. */
function filledRows(spec: RowsSpec, rows: readonly Row[] | null | undefined): Row[] {
  const texts = spec.columns.filter((c) => !c.options);
  return (rows ?? [])
    .map((r) => Object.fromEntries(spec.columns.map((c) => [c.key, (r[c.key] ?? '').trim()])))
    .filter((r) => texts.some((c) => r[c.key] !== ''));
}

/** Whether a text is a web address the API takes (http:// or https://, as the server checks). */
export function isWebAddress(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

/**
 * What is wrong with a list's rows, in words, one entry a row (null: nothing), so that it is said before saving:
 * a row with texts but not the one it needs, or an address that is not a web address.
 */
export function rowProblems(spec: RowsSpec, rows: readonly Row[]): (string | null)[] {
  const item = spec.item.charAt(0).toUpperCase() + spec.item.slice(1);
  const needed = spec.columns.find((c) => c.key === spec.needs)!;
  return rows.map((r, i) => {
    const filled = spec.columns.filter((c) => !c.options && (r[c.key] ?? '').trim() !== '');
    if (filled.length === 0) return null;
    if ((r[spec.needs] ?? '').trim() === '') return `${item} ${i + 1} has no ${needed.label}.`;
    const bad = spec.columns.find((c) => c.url && !isWebAddress((r[c.key] ?? '').trim()));
    return bad ? `${item} ${i + 1}: "${(r[bad.key] ?? '').trim()}" is not a web address; it must start with http:// or https://.` : null;
  });
}

/**
 * A field the API names in a 400's details (`links.0.url`) in the dialog's words ("Links, link 1: web address"), or
 * the name itself when the form has no such field.
 */
export function fieldInWords(specs: readonly FieldSpec[], path: string): string {
  const [name, index, key] = path.split('.');
  const spec = specs.find((s) => s.name === name);
  if (!spec) return path;
  const column = spec.rows?.columns.find((c) => c.key === key);
  if (spec.rows && index !== undefined && /^\d+$/.test(index))
    return `${spec.label}, ${spec.rows.item} ${Number(index) + 1}${column ? `: ${column.label}` : ''}`;
  return spec.label;
}
