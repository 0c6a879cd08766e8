import { z } from 'zod';

export interface PreferenceDefinition {
  schema: z.ZodType;
  default: unknown;
  description: string;
}

/** Every user preference: key → value schema, default, meaning. Unknown keys are a 400. */
export const PREFERENCES: Record<string, PreferenceDefinition> = {
  reading_direction: { schema: z.enum(['ltr', 'rtl', 'vertical', 'webtoon']), default: 'ltr', description: 'Default reading direction when a series does not set one.' },
  page_fit: { schema: z.enum(['width', 'height', 'screen', 'original']), default: 'screen', description: 'How the reader fits a page.' },
  double_page: { schema: z.boolean(), default: false, description: 'Show two pages side by side on wide screens.' },
  theme: { schema: z.enum(['system', 'light', 'dark']), default: 'system', description: 'Interface theme.' },
  language: { schema: z.string().regex(/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/, 'a BCP 47 language tag'), default: 'en', description: 'Interface language.' },
  default_library_id: { schema: z.uuid().nullable(), default: null, description: 'Library opened first; null for all libraries.' },
  books_per_page: { schema: z.number().int().min(1).max(500), default: 50, description: 'Items per page in lists.' },
  show_read_books: { schema: z.boolean(), default: true, description: 'Show books already read in lists.' },
  image_format: { schema: z.enum(['original', 'webp', 'jpeg']), default: 'original', description: 'Format the reader asks pages in.' },
};
