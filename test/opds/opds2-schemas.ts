import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { REFERENCE } from './helpers.js';

const addFormats = addFormatsModule as unknown as { default: (ajv: Ajv) => void };

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? jsonFiles(file) : name.endsWith('.json') ? [file] : [];
  });
}

export interface Opds2Validators {
  feed: ValidateFunction;
  publication: ValidateFunction;
  /** Readium Web Publication Manifest (the DiViNa manifest). */
  manifest: ValidateFunction;
}

/** The OPDS 2.0 and Readium schemas from test/reference/opds2, each loaded under its `$id` (SOURCES.md). */
export function loadOpds2Schemas(): Opds2Validators {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  for (const file of jsonFiles(path.join(REFERENCE, 'opds2'))) {
    const schema = JSON.parse(readFileSync(file, 'utf8')) as { $id: string };
    ajv.addSchema(schema, schema.$id);
  }
  const get = (id: string) => {
    const v = ajv.getSchema(id);
    if (!v) throw new Error(`schema ${id} missing`);
    return v;
  };
  return {
    feed: get('https://specs.opds.io/schema/feed.schema.json'),
    publication: get('https://specs.opds.io/schema/publication.schema.json'),
    manifest: get('https://readium.org/webpub-manifest/schema/publication.schema.json'),
  };
}

export function schemaErrors(validate: ValidateFunction, doc: unknown): string[] {
  return validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
}
