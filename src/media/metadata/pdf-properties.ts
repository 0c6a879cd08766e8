import type { Author, MetadataFields } from './metadata-types.js';
import { dateParts, plainText, splitList } from './metadata-values.js';

/** The document information dictionary of a PDF, as pdfjs reports it. */
export interface PdfProperties {
  title: string | null;
  author: string | null;
  subject: string | null;
  keywords: string | null;
  /** The application that made the original document; never an author. */
  creator: string | null;
  producer: string | null;
  creation_date: string | null;
}

function stringOf(info: Record<string, unknown>, key: string): string | null {
  const value = info[key];
  if (typeof value !== 'string') return null;
  // Strings from PDF producers often carry NULs and padding.
  const text = value.replace(/\0/g, '').trim();
  return text === '' ? null : text;
}

export function pdfPropertiesFromInfo(info: unknown): PdfProperties {
  const record = info && typeof info === 'object' ? (info as Record<string, unknown>) : {};
  return {
    title: stringOf(record, 'Title'),
    author: stringOf(record, 'Author'),
    subject: stringOf(record, 'Subject'),
    keywords: stringOf(record, 'Keywords'),
    creator: stringOf(record, 'Creator'),
    producer: stringOf(record, 'Producer'),
    creation_date: stringOf(record, 'CreationDate'),
  };
}

/** Titles that name the file or the tool rather than the book ("Microsoft Word - draft.docx", "untitled"). */
function isPlaceholderTitle(title: string): boolean {
  return /^(microsoft (word|powerpoint) - |untitled$)/i.test(title) || /\.(docx?|pdf|indd|odt|rtf|txt|tex|qxd)$/i.test(title);
}

export function pdfPropertiesToFields(properties: PdfProperties): MetadataFields {
  const fields: MetadataFields = {};
  if (properties.title && !isPlaceholderTitle(properties.title)) fields.title = properties.title;
  const authors: Author[] = splitList(properties.author, /;|\s&\s|\s+and\s+/i).map((name) => ({ name, role: 'writer' }));
  if (authors.length > 0) fields.authors = authors;
  const summary = plainText(properties.subject);
  if (summary) fields.summary = summary;
  const tags = splitList(properties.keywords);
  if (tags.length > 0) fields.tags = tags;
  Object.assign(fields, dateParts(properties.creation_date));
  return fields;
}
