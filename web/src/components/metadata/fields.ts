/** The editable fields as the Edit dialog shows them, in groups (the API's names: PATCH /series|books/{id}). */
export type FieldKind = 'text' | 'textarea' | 'number' | 'date' | 'select' | 'words' | 'authors';

export interface FieldSpec {
  name: string;
  label: string;
  kind: FieldKind;
  options?: ReadonlyArray<readonly [string, string]>;
  /** Cannot be emptied (the API refuses null). */
  required?: boolean;
}

export interface FieldGroup {
  title: string;
  fields: FieldSpec[];
}

export const AUTHOR_ROLES = ['writer', 'penciller', 'inker', 'colorist', 'letterer', 'cover', 'editor', 'translator'] as const;

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
  { title: 'Authors', fields: [{ name: 'authors', label: 'Authors', kind: 'authors' }] },
  { title: 'Tags', fields: [{ name: 'tags', label: 'Tags', kind: 'words' }] },
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
  return value;
}
