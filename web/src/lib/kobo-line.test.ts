import { describe, expect, it } from 'vitest';
import { koboTemplateFor } from './kobo-line';

const TEMPLATE_AT = (base: string) => `api_endpoint=${base}/kobo/{api_key}`;

describe('the Kobo line', () => {
  it('keeps the public URL or the reachable address the server built it from', () => {
    const base = 'https://books.example.org';
    expect(koboTemplateFor(TEMPLATE_AT(base), base, { kind: 'public', base })).toEqual({ template: TEMPLATE_AT(base), placeholder: false });
    const lan = 'http://192.168.1.20:8080';
    expect(koboTemplateFor(TEMPLATE_AT(lan), lan, { kind: 'reachable', base: lan }).template).toBe(TEMPLATE_AT(lan));
  });

  it('opened at loopback: the LAN address chosen, not 127.0.0.1', () => {
    const loop = 'http://127.0.0.1:8080';
    const address = {
      kind: 'lan' as const,
      base: 'http://10.0.0.5:8080',
      loopbackUrl: loop,
      choices: ['http://192.168.1.20:8080', 'http://10.0.0.5:8080'],
    };
    expect(koboTemplateFor(TEMPLATE_AT(loop), loop, address)).toEqual({
      template: TEMPLATE_AT('http://10.0.0.5:8080'),
      placeholder: false,
    });
  });

  it('loopback with no other address known: a placeholder host to replace, the port kept', () => {
    for (const loop of ['http://127.0.0.1:8080', 'http://localhost:8080', 'http://[::1]:8080']) {
      const out = koboTemplateFor(TEMPLATE_AT(loop), loop, { kind: 'loopback-only', base: loop, loopbackUrl: loop });
      expect(out).toEqual({ template: TEMPLATE_AT('http://your-server:8080'), placeholder: true });
    }
    const failed = koboTemplateFor(TEMPLATE_AT('http://127.0.0.1:8080'), undefined, { kind: 'failed', base: 'http://127.0.0.1:8080' });
    expect(failed.template).not.toContain('127.0.0.1');
    expect(failed.placeholder).toBe(true);
  });
});
