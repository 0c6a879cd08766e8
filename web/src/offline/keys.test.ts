import { describe, expect, it } from 'vitest';
import { isOfflinePath, offlineCacheName, offlineKey, userOfAuthorization } from './keys';

const token = (payload: object) => `h.${btoa(JSON.stringify(payload)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}.s`;

describe('offline copies: whose, and which requests they answer', () => {
  it('reads the user of a Bearer token, and nobody from anything else', () => {
    expect(userOfAuthorization(`Bearer ${token({ sub: 'u-1', exp: 1 })}`)).toBe('u-1');
    expect(userOfAuthorization(null)).toBeNull();
    expect(userOfAuthorization('Basic YTpi')).toBeNull();
    expect(userOfAuthorization('Bearer colophon_abcdefgh_secret')).toBeNull();
    expect(userOfAuthorization(`Bearer ${token({ sub: 42 })}`)).toBeNull();
    expect(offlineCacheName('u-1')).toBe('colophon-offline-u-1');
  });

  it("answers a downloaded book's own requests only", () => {
    const id = '01a2428e-0c10-74ce-9ab9-e8f7b2768fff';
    for (const path of [
      `/api/v1/books/${id}`,
      `/api/v1/books/${id}/pages`,
      `/api/v1/books/${id}/pages/3`,
      `/api/v1/books/${id}/resources`,
      `/api/v1/books/${id}/resource/OEBPS/chapter%201.xhtml`,
      `/api/v1/books/${id}/thumbnail`,
      `/api/v1/series/${id}`,
      '/api/v1/user/preferences',
    ])
      expect(isOfflinePath(path), path).toBe(true);
    for (const path of [
      `/api/v1/books/${id}/progress`,
      `/api/v1/books/${id}/file`,
      '/api/v1/books',
      `/api/v1/series/${id}/books`,
      '/api/v1/auth/me',
      '/health',
    ])
      expect(isOfflinePath(path), path).toBe(false);
  });

  it('keeps a page image under its path, whatever width it is asked at', () => {
    expect(offlineKey(new URL('http://x/api/v1/books/b/pages/3?width=1200&format=webp'))).toBe('/api/v1/books/b/pages/3');
  });
});
