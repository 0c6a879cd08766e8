import { describe, expect, it } from 'vitest';
import { expiryFor, koreaderSyncUrl, opdsAccess } from './opds-link';

describe('opdsAccess: what the API key QR code carries', () => {
  it('puts the key into the OPDS 1.2 catalog URL as Basic credentials of user "api"', () => {
    const key = 'colophon_ab12cd34_s3cr3t';
    const access = opdsAccess('http://192.168.1.20:8080', key);
    expect(access.catalogUrl).toBe('http://192.168.1.20:8080/opds/v1.2/catalog');
    expect(access.username).toBe('api');
    expect(access.password).toBe(key);
    expect(access.qrText).toBe(`http://api:${key}@192.168.1.20:8080/opds/v1.2/catalog`);
    const parsed = new URL(access.qrText);
    expect([parsed.username, decodeURIComponent(parsed.password)]).toEqual(['api', key]);
  });

  it("keeps the path of a base URL behind a proxy (server.public_url), as the server's own links do", () => {
    expect(opdsAccess('https://books.example.org', 'k').catalogUrl).toBe('https://books.example.org/opds/v1.2/catalog');
    expect(opdsAccess('https://example.org/colophon/', 'k').catalogUrl).toBe('https://example.org/colophon/opds/v1.2/catalog');
  });
});

describe('expiryFor', () => {
  const now = new Date('2026-03-01T12:00:00.000Z');
  it('turns a choice into a timestamp, or null for keys that never expire', () => {
    expect(expiryFor('30d', now)).toBe('2026-03-31T12:00:00.000Z');
    expect(expiryFor('1y', now)).toBe('2027-03-01T12:00:00.000Z');
    expect(expiryFor('never', now)).toBeNull();
  });
});

describe('koreaderSyncUrl: the custom sync server to paste into KOReader', () => {
  it('is the server origin, the kosync path the server names, and the key as the last segment', () => {
    expect(koreaderSyncUrl('http://192.168.1.20:8080', '/koreader', 'colophon_ab12cd34_s3cr3t')).toBe(
      'http://192.168.1.20:8080/koreader/colophon_ab12cd34_s3cr3t',
    );
  });

  it('follows a moved prefix and keeps a key with unsafe characters in one segment', () => {
    expect(koreaderSyncUrl('https://books.example.org', '/sync/ko/', 'a/b c')).toBe('https://books.example.org/sync/ko/a%2Fb%20c');
    expect(koreaderSyncUrl('https://example.org/colophon', '/koreader', 'k')).toBe('https://example.org/colophon/koreader/k');
  });
});
