import { describe, expect, it } from 'vitest';
import { shareableAddress } from './server-address';

const browser = 'http://127.0.0.1:8080';
const loopback = {
  base_url: browser,
  public_url_set: false,
  loopback: true,
  lan_urls: ['http://192.168.1.20:8080', 'http://10.0.0.5:8080'],
};

describe('shareableAddress: the address a new API key gives a phone', () => {
  it('is server.public_url when it is set, loopback or not', () => {
    const a = { base_url: 'https://books.example.org', public_url_set: true, loopback: false, lan_urls: ['http://192.168.1.20:8080'] };
    expect(shareableAddress(a, false, browser, null)).toEqual({ kind: 'public', base: 'https://books.example.org' });
  });

  it("is the server's first LAN address when the browser reached it by loopback, or the one chosen", () => {
    expect(shareableAddress(loopback, false, browser, null)).toEqual({
      kind: 'lan',
      base: 'http://192.168.1.20:8080',
      loopbackUrl: browser,
      choices: loopback.lan_urls,
    });
    expect(shareableAddress(loopback, false, browser, 'http://10.0.0.5:8080')).toMatchObject({ base: 'http://10.0.0.5:8080' });
    // A choice the server no longer lists is not kept.
    expect(shareableAddress(loopback, false, browser, 'http://172.16.0.9:8080')).toMatchObject({ base: 'http://192.168.1.20:8080' });
  });

  it('says when a loopback address has no LAN address beside it', () => {
    expect(shareableAddress({ ...loopback, lan_urls: [] }, false, browser, null)).toEqual({
      kind: 'loopback-only',
      base: browser,
      loopbackUrl: browser,
    });
  });

  it('is the address the browser used when that one is reachable', () => {
    const a = { base_url: 'http://192.168.1.20:8080', public_url_set: false, loopback: false, lan_urls: ['http://192.168.1.20:8080'] };
    expect(shareableAddress(a, false, 'http://192.168.1.20:8080', null)).toEqual({ kind: 'reachable', base: 'http://192.168.1.20:8080' });
  });

  it("falls back to the browser's origin when the addresses could not be loaded, and waits while they load", () => {
    expect(shareableAddress(undefined, true, browser, null)).toEqual({ kind: 'failed', base: browser });
    expect(shareableAddress(undefined, false, browser, null)).toEqual({ kind: 'loading' });
  });
});
