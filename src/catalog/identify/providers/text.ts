import { DomUtils, parseDocument } from 'htmlparser2';

/**
 * A provider's HTML description as plain text: line breaks and paragraphs kept as new lines, tags gone, entities
 * decoded, blank lines collapsed. Summaries are shown as text, never as markup.
 */
export function plainText(html: string | null | undefined): string | undefined {
  if (!html) return undefined;
  const marked = html.replace(/<br\s*\/?>/gi, '\n').replace(/<\/(p|div|li|h\d)>/gi, '$&\n');
  const text = DomUtils.textContent(parseDocument(marked, { decodeEntities: true }))
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return text || undefined;
}
