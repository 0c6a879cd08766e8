import { parseJsonColumn } from '../../db/json-column.js';
import { METADATA_SOURCES, type PrecedenceSource } from '../../media/metadata/metadata-types.js';

/** Where a series' name came from, read from its `metadata` document; null when never recorded. */
export function seriesNameSource(metadataDocument: string | undefined): PrecedenceSource | null {
  const source = parseJsonColumn<unknown>(metadataDocument, undefined, (document) =>
    document && typeof document === 'object' ? (document as { name_source?: unknown }).name_source : undefined,
  );
  return METADATA_SOURCES.find((s) => s === source) ?? null;
}
