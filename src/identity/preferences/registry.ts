import { z } from 'zod';

export interface PreferenceDefinition {
  schema: z.ZodType;
  default: unknown;
  description: string;
}

const DEVICE_CLASSES = ['phone', 'tablet', 'desktop', 'eink'] as const;

/** One set of reader choices; every field optional (what is absent falls back to the wider set, then the defaults). */
const ReaderSettings = z.strictObject({
  mode: z.enum(['ltr', 'rtl', 'vertical', 'webtoon']).optional(),
  fit: z.enum(['screen', 'width', 'height', 'original']).optional(),
  spread: z.enum(['single', 'double', 'auto']).optional(),
  shift: z.boolean().optional(),
  preload: z.number().int().min(0).max(10).optional(),
  gap: z.number().int().min(0).max(200).optional(),
  padding: z.number().int().min(0).max(40).optional(),
  tap_zones: z.enum(['edges', 'thirds', 'off']).optional(),
  eink: z.boolean().optional(),
  grayscale: z.boolean().optional(),
  epub_flow: z.enum(['paginated', 'scrolled']).optional(),
  epub_theme: z.enum(['light', 'sepia', 'dark']).optional(),
  epub_font: z.enum(['original', 'serif', 'sans-serif', 'monospace']).optional(),
  epub_font_size: z.number().int().min(50).max(300).optional(),
  epub_line_height: z.number().min(1).max(3).optional(),
  epub_margin: z.number().int().min(0).max(30).optional(),
});
const ByDeviceClass = z.partialRecord(z.enum(DEVICE_CLASSES), ReaderSettings);

/** Every user preference: key → value schema, default, meaning. Unknown keys are a 400. */
export const PREFERENCES: Record<string, PreferenceDefinition> = {
  reading_direction: {
    schema: z.enum(['ltr', 'rtl', 'vertical', 'webtoon']),
    default: 'ltr',
    description: 'Default reading direction when a series does not set one.',
  },
  page_fit: { schema: z.enum(['width', 'height', 'screen', 'original']), default: 'screen', description: 'How the reader fits a page.' },
  double_page: { schema: z.boolean(), default: false, description: 'Show two pages side by side on wide screens.' },
  theme: { schema: z.enum(['system', 'light', 'dark']), default: 'system', description: 'Interface theme.' },
  language: {
    schema: z.string().regex(/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/, 'a BCP 47 language tag'),
    default: 'en',
    description: 'Interface language.',
  },
  default_library_id: { schema: z.uuid().nullable(), default: null, description: 'Library opened first; null for all libraries.' },
  books_per_page: { schema: z.number().int().min(1).max(500), default: 50, description: 'Items per page in lists.' },
  show_read_books: { schema: z.boolean(), default: true, description: 'Show books already read in lists.' },
  reader_settings: {
    schema: z.strictObject({
      all_series: ByDeviceClass.optional(),
      series: z
        .record(z.uuid(), ByDeviceClass)
        .refine((r) => Object.keys(r).length <= 5000, 'at most 5000 series')
        .optional(),
    }),
    default: {},
    description:
      'Web reader settings by device class (phone, tablet, desktop, eink): `all_series` for every series, `series` by series id ' +
      '(over all_series). Fields: mode, fit, spread, shift, preload (0-10), gap, padding, tap_zones, eink, grayscale, epub_flow, ' +
      'epub_theme, epub_font, epub_font_size, epub_line_height, epub_margin.',
  },
  image_format: { schema: z.enum(['original', 'webp', 'jpeg']), default: 'original', description: 'Format the reader asks pages in.' },
};
