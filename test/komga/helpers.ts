import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020Module, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import { makeCbz, makeImage } from '../media/fixtures.js';
import type { CatalogTestApp } from '../helpers/catalog.js';
import type { Headers } from '../helpers/auth.js';

/** Komga's own OpenAPI description (OpenAPI 3.1: component schemas are JSON Schema 2020-12). */
const OPENAPI_PATH = path.resolve(import.meta.dirname, '../reference/komga/openapi.json');
const OPENAPI_ID = 'https://komga.org/openapi.json';

// CommonJS packages seen from NodeNext ESM: the classes are on `default`.
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;
type Ajv = InstanceType<typeof Ajv2020>;

let ajv: Ajv | undefined;
const validators = new Map<string, ValidateFunction>();

function komgaAjv(): Ajv {
  if (ajv) return ajv;
  const doc = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8')) as {
    components: { schemas: Record<string, { properties: Record<string, unknown> }> };
  };
  // Komga's serializer writes an unset nullable property as null (Jackson's default inclusion), which its description
  // does not say: a user without an age limit has `"ageRestriction": null`, and so do ours.
  const user = doc.components.schemas.UserDto!.properties;
  user.ageRestriction = { anyOf: [user.ageRestriction, { type: 'null' }] };
  ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  for (const f of ['int32', 'int64', 'float', 'double', 'binary']) ajv.addFormat(f, true);
  ajv.addSchema({ $id: OPENAPI_ID, components: doc.components }, OPENAPI_ID);
  return ajv;
}

/** A validator for `#/components/schemas/<name>`, or an inline schema whose $refs point there. */
export function komgaSchema(name: string): ValidateFunction {
  let v = validators.get(name);
  if (!v) {
    const a = komgaAjv();
    v = name.startsWith('array:')
      ? a.compile({ type: 'array', items: { $ref: `${OPENAPI_ID}#/components/schemas/${name.slice(6)}` } })
      : name === 'strings'
        ? a.compile({ type: 'array', items: { type: 'string' }, uniqueItems: true })
        : a.getSchema(`${OPENAPI_ID}#/components/schemas/${name}`)!;
    if (!v) throw new Error(`no Komga schema ${name}`);
    validators.set(name, v);
  }
  return v;
}

/** Asserts that a body matches a Komga DTO schema, reporting every violation. */
export function expectKomga(body: unknown, schema: string): void {
  const validate = komgaSchema(schema);
  const ok = validate(body);
  expect(ok, `${schema}: ${JSON.stringify(validate.errors?.slice(0, 5), null, 1)}\n${JSON.stringify(body).slice(0, 600)}`).toBe(true);
}

export const enableKomga = { komga_api: { enabled: true } } as const;

export interface Reply<T = unknown> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
  raw: Buffer;
}

/** One request as a client app sends it: a method, a URL, and only the headers given (no admin token). */
export async function send<T = unknown>(
  t: CatalogTestApp,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  headers: Headers = {},
  payload?: unknown,
): Promise<Reply<T>> {
  const res = await t.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });
  let body: unknown = null;
  const type = String(res.headers['content-type'] ?? '');
  if (type.includes('json') && res.body) body = JSON.parse(res.body);
  return { status: res.statusCode, body: body as T, headers: res.headers, raw: res.rawPayload };
}

/** The `KOMGA-SESSION` value a response set, if any. */
export function sessionCookie(reply: Reply): string | undefined {
  const header = reply.headers['set-cookie'];
  const values = Array.isArray(header) ? header : header ? [String(header)] : [];
  for (const v of values) {
    const match = /^KOMGA-SESSION=([^;]*)/.exec(v);
    if (match?.[1]) return match[1];
  }
  return undefined;
}

/**
 * The Komga test library: three series with ComicInfo (authors with roles, genres, tags, status, age rating),
 * one manga read right to left, and a book whose second page is a BMP (a type Mihon cannot show, so it asks for
 * `?convert=png`).
 */
export async function writeKomgaCorpus(dir: string): Promise<void> {
  const info = (series: string, n: number, extra: Record<string, string | number>) => ({
    Series: series,
    Number: String(n),
    Title: `${series} ${n}`,
    ...extra,
  });
  for (let n = 1; n <= 3; n++) {
    await makeCbz(path.join(dir, 'Astérix'), `Astérix ${String(n).padStart(3, '0')}.cbz`, {
      pages: n + 1,
      pageSize: { width: 60, height: 90 },
      comicInfo: info('Astérix', n, {
        Writer: 'René Goscinny',
        Penciller: 'Albert Uderzo',
        Translator: 'Anthea Bell',
        Publisher: 'Dargaud',
        Genre: 'Humor, Adventure',
        Tags: 'classic',
        LanguageISO: 'fr',
        AgeRating: 'Everyone',
        Year: 1960 + n,
        Summary: `Volume ${n} summary`,
      }),
    });
  }
  for (let n = 1; n <= 2; n++) {
    await makeCbz(path.join(dir, 'Batman'), `Batman ${String(n).padStart(3, '0')}.cbz`, {
      pages: 2,
      pageSize: { width: 60, height: 90 },
      comicInfo: info('Batman', n, {
        Writer: 'Bob Kane',
        Publisher: 'DC Comics',
        Genre: 'Action',
        Tags: 'dark',
        LanguageISO: 'en',
        Year: 1940,
      }),
    });
  }
  for (const n of [1, 2, 2.5]) {
    await makeCbz(path.join(dir, 'Dragon Ball'), `Dragon Ball ${n}.cbz`, {
      pages: 2,
      pageSize: { width: 60, height: 90 },
      comicInfo: info('Dragon Ball', n, {
        Writer: 'Akira Toriyama',
        Publisher: 'Shueisha',
        Genre: 'Action, Martial Arts',
        LanguageISO: 'ja',
        Manga: 'YesAndRightToLeft',
        AgeRating: 'Teen',
      }),
    });
  }
  const bmp = await makeImage({ width: 40, height: 60, format: 'bmp' });
  const png = await makeImage({ width: 40, height: 60, format: 'png' });
  await makeCbz(path.join(dir, 'Odd Pages'), 'Odd Pages 001.cbz', {
    pages: [
      { name: '001.png', data: png },
      { name: '002.bmp', data: bmp },
    ],
    comicInfo: { Series: 'Odd Pages', Number: '1', Title: 'Odd Pages 1' },
  });
}
