import { validate, version } from 'uuid';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/db/ids.js';

describe('newId', () => {
  it('makes valid, distinct UUID v7s that sort in the order they were made, within a millisecond too', () => {
    // Far more than one millisecond holds, and past the 4 KiB pool of random bytes several times over.
    const ids = Array.from({ length: 20_000 }, () => newId());
    for (const id of [ids[0]!, ids[4_000]!, ids[19_999]!]) {
      expect(validate(id)).toBe(true);
      expect(version(id)).toBe(7);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('carries the time it was made in its first 48 bits', () => {
    const before = Date.now();
    const id = newId();
    const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now() + 1);
  });
});
