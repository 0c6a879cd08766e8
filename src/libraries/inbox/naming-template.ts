/**
 * Naming templates of the inbox (issue 55): where a filed book goes inside its library, written as
 * `{series}/{series}[ v{volume:02}] #{number:03}[ ({year})].{ext}`.
 *
 * - `{field}` is replaced by the book's value; `{field:03}` pads a number with zeros to three digits (the integer
 *   part of "12.5" is padded, the rest kept: `012.5`).
 * - `[…]` is an optional part: left out when a field inside it has no value (a book without a volume gets no " v").
 * - `/` separates folders. Each folder and file name is made safe for every filesystem a library may sit on:
 *   characters Windows, macOS or Linux refuse are replaced, trailing dots and spaces removed, `.` and `..` refused.
 */
import { fill, sentence } from '../../i18n/messages.js';

export const TEMPLATE_FIELDS = ['series', 'title', 'number', 'volume', 'year', 'publisher', 'ext', 'original'] as const;
export type TemplateField = (typeof TEMPLATE_FIELDS)[number];
export type TemplateValues = Partial<Record<TemplateField, string | number | null | undefined>>;

/** A template's mistake: `template` (a catalogue message) with its `values`, and where it is. */
export class TemplateError extends Error {
  constructor(
    readonly template: string,
    readonly values: readonly unknown[],
    /** Where in the template (0-based character index). */
    readonly at: number,
  ) {
    super(fill(template, values));
    this.name = 'TemplateError';
  }
}

type Part =
  { kind: 'text'; text: string } | { kind: 'field'; field: TemplateField; pad: number | null } | { kind: 'optional'; parts: Part[] };

export interface NamingTemplate {
  readonly source: string;
  readonly parts: readonly Part[];
}

const isField = (name: string): name is TemplateField => (TEMPLATE_FIELDS as readonly string[]).includes(name);

/** Parses a template, or throws TemplateError naming what is wrong and where. */
export function parseTemplate(source: string): NamingTemplate {
  if (source.trim() === '') throw new TemplateError(sentence('The template is empty'), [], 0);
  if (source.startsWith('/') || /^[A-Za-z]:[\\/]/.test(source))
    throw new TemplateError(sentence('The template is a path inside the library: it cannot start with /'), [], 0);
  if (source.length > 500) throw new TemplateError(sentence('The template is longer than 500 characters'), [], 500);
  let index = 0;
  const read = (inOptional: boolean): Part[] => {
    const parts: Part[] = [];
    let text = '';
    const flush = () => {
      if (text) parts.push({ kind: 'text', text });
      text = '';
    };
    while (index < source.length) {
      const char = source[index]!;
      if (char === '{') {
        const end = source.indexOf('}', index);
        if (end < 0) throw new TemplateError(sentence('A {{ is not closed'), [], index);
        const [name = '', padding] = source.slice(index + 1, end).split(':');
        if (!isField(name))
          throw new TemplateError(
            sentence('Unknown field {{{0}}}; the fields are {1}'),
            [name, TEMPLATE_FIELDS.map((f) => `{${f}}`).join(', ')],
            index,
          );
        if (padding !== undefined && !/^0[1-9]$/.test(padding))
          throw new TemplateError(sentence('{{{0}:{1}}}: the width is written 02, 03 ... (at most 09)'), [name, padding], index);
        flush();
        parts.push({ kind: 'field', field: name, pad: padding === undefined ? null : Number(padding) });
        index = end + 1;
      } else if (char === '}') {
        throw new TemplateError(sentence('A }} has no {{'), [], index);
      } else if (char === '[') {
        if (inOptional) throw new TemplateError(sentence('Optional parts [ ] cannot be nested'), [], index);
        flush();
        const start = index;
        index += 1;
        const inner = read(true);
        if (source[index] !== ']') throw new TemplateError(sentence('A [ is not closed'), [], start);
        if (!inner.some((p) => p.kind === 'field')) throw new TemplateError(sentence('An optional part [ ] holds no field'), [], start);
        parts.push({ kind: 'optional', parts: inner });
        index += 1;
      } else if (char === ']') {
        if (inOptional) {
          flush();
          return parts;
        }
        throw new TemplateError(sentence('A ] has no ['), [], index);
      } else {
        text += char;
        index += 1;
      }
    }
    flush();
    return parts;
  };
  const parts = read(false);
  if (!parts.some((p) => p.kind === 'field' && p.field === 'ext'))
    throw new TemplateError(sentence('The template must end the file name with {{ext}}'), [], source.length);
  return { source, parts };
}

function valueOf(values: TemplateValues, field: TemplateField, pad: number | null): string | null {
  const raw = values[field];
  if (raw === null || raw === undefined) return null;
  const text = String(raw).trim();
  if (text === '') return null;
  if (pad === null) return text;
  const match = /^(\d+)(.*)$/.exec(text);
  return match ? match[1]!.padStart(pad, '0') + match[2]! : text;
}

/** Characters a folder or file name cannot hold on Windows, macOS or Linux, and control characters. */
// eslint-disable-next-line no-control-regex -- control characters are what this must find.
const UNSAFE = /[<>:"\\|?*\u0000-\u001f]/g;

function safeSegment(segment: string): string {
  const cleaned = segment
    .replace(UNSAFE, '_')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[. ]+$/, '');
  return cleaned.length > 200 ? cleaned.slice(0, 200).trimEnd() : cleaned;
}

/**
 * The path (relative to the library, `/`-separated) a book's values give. Throws TemplateError when the result
 * has an empty folder or file name (a required field without a value).
 */
export function renderTemplate(template: NamingTemplate, values: TemplateValues): string {
  // A value never makes a folder ("AC/DC" is one name): its slashes become _ before the path is split.
  const field = (name: TemplateField, pad: number | null) => valueOf(values, name, pad)?.replace(/[/]/g, '_') ?? null;
  const render = (parts: readonly Part[]): string | null => {
    let out = '';
    for (const part of parts) {
      if (part.kind === 'text') out += part.text;
      else if (part.kind === 'field') {
        const value = field(part.field, part.pad);
        if (value === null) return null;
        out += value;
      } else out += render(part.parts) ?? '';
    }
    return out;
  };
  const whole = render(template.parts);
  const missing = template.parts.find((p) => p.kind === 'field' && field(p.field, p.pad) === null);
  if (whole === null)
    throw new TemplateError(sentence('The book has no {{{0}}} for this template'), [missing?.kind === 'field' ? missing.field : '?'], 0);
  const segments = whole.split('/').map(safeSegment);
  if (segments.some((s) => s === '' || s === '.' || s === '..'))
    throw new TemplateError(sentence('A folder or file name of the result is empty'), [], 0);
  return segments.join('/');
}
