import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import type { CatalogTestApp } from './catalog.js';

/**
 * KOReader's util.partialMD5 re-implemented from its Lua source, independently of src/media/analysis/koreader-md5.ts:
 * 1 KiB samples at `bit.lshift(1024, 2*i)` for i = -1..10 (LuaJIT: count mod 32, signed 32-bit result).
 */
export function koreaderPartialMd5(file: string): string {
  const md5 = createHash('md5');
  const fd = openSync(file, 'r');
  try {
    for (let i = -1; i <= 10; i++) {
      const sample = Buffer.alloc(1024);
      const read = readSync(fd, sample, 0, 1024, Number(BigInt.asIntN(32, 1024n << BigInt((2 * i + 32) % 32))));
      if (read === 0) break;
      md5.update(sample.subarray(0, read));
    }
  } finally {
    closeSync(fd);
  }
  return md5.digest('hex');
}

export const md5 = (text: string) => createHash('md5').update(text).digest('hex');

export interface KosyncReply {
  status: number;
  body: Record<string, unknown> | null;
  type: string | undefined;
}

/**
 * KOReader's kosync client as its plugin speaks: `Accept: application/vnd.koreader.v1+json`, the user name field
 * as `x-auth-user`, an MD5 of the password field as `x-auth-key`, JSON bodies. `base` is the sync server URL the
 * user pasted (`/koreader` or `/koreader/{api key}`).
 */
export function koreaderClient(t: CatalogTestApp, user: string | undefined, base = '/koreader') {
  const headers: Record<string, string> = {
    accept: 'application/vnd.koreader.v1+json',
    'x-auth-key': md5('typed password'),
    'user-agent': 'KOReader/2024.11 (Kobo)',
  };
  if (user !== undefined) headers['x-auth-user'] = user;
  return async (method: 'GET' | 'PUT' | 'POST', url: string, body?: unknown): Promise<KosyncReply> => {
    const res = await t.app.inject({
      method,
      url: `${base}${url}`,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return {
      status: res.statusCode,
      body: res.body ? (JSON.parse(res.body) as Record<string, unknown>) : null,
      type: res.headers['content-type'] as string | undefined,
    };
  };
}
