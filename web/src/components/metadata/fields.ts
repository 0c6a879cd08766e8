import { i18n, type MessageDescriptor } from '@lingui/core';
import { msg, t } from '@lingui/core/macro';

/** The editable fields as the Edit dialog shows them, in groups (the API's names: PATCH /series|books/{id}). */
export type FieldKind = 'text' | 'textarea' | 'number' | 'date' | 'select' | 'words' | 'rows';

/**
 * One input of a list row: a text (or web address) input, or a choice among `options`. Its words are messages,
 * shown through `i18n._` in the language in use.
 */
export interface RowColumn {
  key: string;
  /** In a sentence ("web address"). */
  label: MessageDescriptor;
  /** On its own, as a text input's placeholder ("Web address"). */
  placeholder?: MessageDescriptor;
  options?: readonly string[];
  /** The options in words; an option without one is shown as it is. */
  optionLabels?: Readonly<Record<string, MessageDescriptor>>;
  /** A web address: checked before saving (the API takes http:// and https:// only). */
  url?: boolean;
}

/** A list of small records (authors, links, alternate titles): one row each, added and removed with buttons. */
export interface RowsSpec {
  /** What one row is, in words ("author"). */
  item: MessageDescriptor;
  /** The same at the start of a sentence ("Author"). */
  itemStart: MessageDescriptor;
  /** Said of an empty list ("No authors."). */
  none: MessageDescriptor;
  /** The button that adds a row ("Add author"). */
  add: MessageDescriptor;
  columns: RowColumn[];
  /** The column a row needs: a row without it is left out when all its texts are blank, else said. */
  needs: string;
}
export type Row = Record<string, string>;

export interface FieldSpec {
  name: string;
  label: MessageDescriptor;
  kind: FieldKind;
  options?: ReadonlyArray<readonly [string, MessageDescriptor]>;
  /** Cannot be emptied (the API refuses null). */
  required?: boolean;
  rows?: RowsSpec;
}

export interface FieldGroup {
  title: MessageDescriptor;
  fields: FieldSpec[];
}

export const AUTHOR_ROLES = ['writer', 'penciller', 'inker', 'colorist', 'letterer', 'cover', 'editor', 'translator'] as const;

/** The authors' roles in words (the API's values, in English as they are). */
export const AUTHOR_ROLE_LABELS: Readonly<Record<string, MessageDescriptor>> = {
  writer: msg({ message: 'writer', context: 'author role' }),
  penciller: msg({ message: 'penciller', context: 'author role' }),
  inker: msg({ message: 'inker', context: 'author role' }),
  colorist: msg({ message: 'colorist', context: 'author role' }),
  letterer: msg({ message: 'letterer', context: 'author role' }),
  cover: msg({ message: 'cover', context: 'author role' }),
  editor: msg({ message: 'editor', context: 'author role' }),
  translator: msg({ message: 'translator', context: 'author role' }),
};

/** An author's role in words in the language in use; a role the app does not know, as it is. */
export function roleInWords(role: string): string {
  const label = AUTHOR_ROLE_LABELS[role];
  return label ? i18n._(label) : role;
}

/** A list field: rows of `columns`; a row counts once its `needs` column is filled. */
const rowsField = (name: string, label: MessageDescriptor, rows: RowsSpec): FieldSpec => ({ name, label, kind: 'rows', rows });
const AUTHORS = rowsField('authors', msg`Authors`, {
  item: msg`author`,
  itemStart: msg`Author`,
  none: msg`No authors.`,
  add: msg`Add author`,
  needs: 'name',
  columns: [
    { key: 'name', label: msg`name`, placeholder: msg`Name` },
    { key: 'role', label: msg`role`, options: AUTHOR_ROLES, optionLabels: AUTHOR_ROLE_LABELS },
  ],
});
const LINKS = rowsField('links', msg`Links`, {
  item: msg`link`,
  itemStart: msg`Link`,
  none: msg`No links.`,
  add: msg`Add link`,
  needs: 'url',
  columns: [
    { key: 'label', label: msg`label`, placeholder: msg`Label` },
    { key: 'url', label: msg`web address`, placeholder: msg`Web address`, url: true },
  ],
});
const ALTERNATE_TITLES = rowsField('alternate_titles', msg`Alternate titles`, {
  item: msg`alternate title`,
  itemStart: msg`Alternate title`,
  none: msg`No alternate titles.`,
  add: msg`Add alternate title`,
  needs: 'title',
  columns: [
    { key: 'label', label: msg`label`, placeholder: msg`Label` },
    { key: 'title', label: msg`title`, placeholder: msg`Title` },
  ],
});

export const SERIES_GROUPS: FieldGroup[] = [
  {
    title: msg`Titles`,
    fields: [
      { name: 'title', label: msg`Title`, kind: 'text' },
      { name: 'sort_title', label: msg`Sort title`, kind: 'text', required: true },
    ],
  },
  {
    title: msg({ message: 'Reading', context: 'group of fields' }),
    fields: [
      {
        name: 'reading_direction',
        label: msg`Reading direction`,
        kind: 'select',
        options: [
          ['ltr', msg`Left to right`],
          ['rtl', msg`Right to left (manga)`],
          ['vertical', msg`Vertical`],
          ['webtoon', msg`Webtoon`],
        ],
      },
      {
        name: 'status',
        label: msg({ message: 'Status', context: 'series status' }),
        kind: 'select',
        options: [
          ['ongoing', msg({ message: 'Ongoing', context: 'series status' })],
          ['ended', msg({ message: 'Ended', context: 'series status' })],
          ['abandoned', msg({ message: 'Abandoned', context: 'series status' })],
          ['hiatus', msg({ message: 'Hiatus', context: 'series status' })],
        ],
      },
      { name: 'total_book_count', label: msg`Books in all`, kind: 'number' },
    ],
  },
  {
    title: msg`Description`,
    fields: [
      { name: 'summary', label: msg`Summary`, kind: 'textarea' },
      { name: 'publisher', label: msg`Publisher`, kind: 'text' },
      { name: 'language', label: msg`Language`, kind: 'text' },
      { name: 'age_rating', label: msg`Age rating`, kind: 'text' },
    ],
  },
  {
    title: msg`Genres and tags`,
    fields: [
      { name: 'genres', label: msg`Genres`, kind: 'words' },
      { name: 'tags', label: msg`Tags`, kind: 'words' },
    ],
  },
  { title: msg`Alternate titles`, fields: [ALTERNATE_TITLES] },
  { title: msg`Links`, fields: [LINKS] },
];

export const BOOK_GROUPS: FieldGroup[] = [
  {
    title: msg`Title and number`,
    fields: [
      { name: 'title', label: msg`Title`, kind: 'text', required: true },
      { name: 'number', label: msg({ message: 'Number', context: 'book number' }), kind: 'text' },
      { name: 'number_sort', label: msg`Sort number`, kind: 'number' },
    ],
  },
  {
    title: msg`Description`,
    fields: [
      { name: 'summary', label: msg`Summary`, kind: 'textarea' },
      { name: 'release_date', label: msg`Release date`, kind: 'date' },
      { name: 'isbn', label: msg`ISBN`, kind: 'text' },
    ],
  },
  { title: msg`Authors`, fields: [AUTHORS] },
  { title: msg`Tags`, fields: [{ name: 'tags', label: msg`Tags`, kind: 'words' }] },
  { title: msg`Links`, fields: [LINKS] },
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
  const item = i18n._(spec.itemStart);
  const needed = i18n._(spec.columns.find((c) => c.key === spec.needs)!.label);
  return rows.map((r, i) => {
    const filled = spec.columns.filter((c) => !c.options && (r[c.key] ?? '').trim() !== '');
    if (filled.length === 0) return null;
    const number = i + 1;
    if ((r[spec.needs] ?? '').trim() === '') return t`${item} ${number} has no ${needed}.`;
    const bad = spec.columns.find((c) => c.url && !isWebAddress((r[c.key] ?? '').trim()));
    if (!bad) return null;
    const address = (r[bad.key] ?? '').trim();
    return t`${item} ${number}: "${address}" is not a web address; it must start with http:// or https://.`;
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
  const field = i18n._(spec.label);
  const columnLabel = spec.rows?.columns.find((c) => c.key === key)?.label;
  if (spec.rows && index !== undefined && /^\d+$/.test(index)) {
    const item = i18n._(spec.rows.item);
    const number = Number(index) + 1;
    if (!columnLabel) return t`${field}, ${item} ${number}`;
    const column = i18n._(columnLabel);
    return t`${field}, ${item} ${number}: ${column}`;
  }
  return field;
}
