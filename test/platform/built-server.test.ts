import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import path from 'node:path';
import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../helpers/auth.js';
import { startBuiltServer, type BuiltServer } from '../helpers/built-server.js';
import type { Paged } from '../helpers/catalog.js';
import { startTestProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { libraryDir, scan, waitForTask, api, createLibrary } from '../scanner/helpers.js';
import { comicInfoXml, makeCbz, makePdf } from '../media/fixtures.js';
import { realFixture } from '../media/real-fixtures.js';
import { makeProseEpub } from '../kobo/kepub-fixture.js';

// Every package the server loads on first use (decision 027), used once through the built server — what users
// run. The test suite otherwise runs the TypeScript sources, where a bundling mistake cannot show (issue 48:
// ComicInfo write-back, Kobo's fixed-layout EPUB and KEPUB all broke in dist/ alone).

interface BookBody {
  id: string;
  path: string;
  format: string;
  write_back: { task_ids: string[] } | null;
}

/** Every entry of a zip held in memory. */
async function zipEntries(data: Buffer): Promise<Map<string, Buffer>> {
  const zip = await yauzl.fromBufferPromise(data, { lazyEntries: true });
  const out = new Map<string, Buffer>();
  for await (const entry of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    out.set(entry.fileName, Buffer.concat(chunks));
  }
  return out;
}

/** An SMTP server that takes every message (enough of RFC 5321 for nodemailer) and keeps its text. */
function smtpSink(): Promise<{ port: number; messages: string[]; close(): Promise<void> }> {
  const messages: string[] = [];
  const server: TcpServer = createTcpServer((socket) => {
    let buffer = '';
    let inData = false;
    socket.write('220 sink ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          messages.push(buffer.slice(0, end));
          buffer = buffer.slice(end + 5);
          inData = false;
          socket.write('250 OK queued\r\n');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250-sink\r\n250 8BITMIME\r\n');
        else if (verb === 'DATA') {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 OK\r\n');
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as { port: number }).port,
        messages,
        close: () => new Promise((r) => server.close(() => r())),
      }),
    ),
  );
}

describe('The built server (node dist/cli.js serve) uses every package it loads on first use', () => {
  let t: BuiltServer;
  let dir: string;
  let libraryId: string;
  let books: Map<string, BookBody>;
  let idp: TestProvider;
  let mail: Awaited<ReturnType<typeof smtpSink>>;

  beforeAll(async () => {
    mail = await smtpSink();
    idp = await startTestProvider([{ client_id: 'colophon-built', client_secret: 'built-secret', redirect_uris: ['http://127.0.0.1/cb'] }]);
    dir = libraryDir();
    const alpha = path.join(dir, 'Alpha');
    mkdirSync(alpha);
    await makeCbz(alpha, 'Alpha 01.cbz', {
      pages: 2,
      comicInfo: comicInfoXml({ Series: 'Alpha', Number: 1 }),
      pageSize: { width: 60, height: 90 },
    });
    copyFileSync(realFixture('test_comic.cbr'), path.join(alpha, 'Alpha 02.cbr'));
    await makePdf(alpha, 'Alpha 03.pdf', { pages: 2 });
    await makeProseEpub(alpha, 'Novel.epub');
    t = await startBuiltServer({
      api: { enable_api_docs: true },
      email: { smtp: { host: '127.0.0.1', port: mail.port } },
      auth: { registration_enabled: true, email_verification_required: true },
      scanner: { watch: true },
    });
    ({ id: libraryId } = await createLibrary(t, dir, { scanning_config: { write_comicinfo: true } }));
    await scan(t, libraryId);
    const list = await api<Paged<BookBody>>(t, 'GET', `/api/v1/books?library_id=${libraryId}&pageSize=50`);
    books = new Map(list.body.data.map((b) => [path.basename(b.path), b]));
    expect([...books.keys()].sort()).toEqual(['Alpha 01.cbz', 'Alpha 02.cbr', 'Alpha 03.pdf', 'Novel.epub']);
  }, 240_000);

  afterAll(async () => {
    await t?.close();
    await idp?.close();
    await mail?.close();
  });

  const book = (name: string) => books.get(name)!;

  it('reads pages of a CBR (node-unrar-js) and renders a PDF page (pdf.js, @napi-rs/canvas), and makes covers (sharp)', async () => {
    const cbr = await t.request({ method: 'GET', url: `/api/v1/books/${book('Alpha 02.cbr').id}/pages/1`, headers: t.headers });
    expect(cbr.statusCode, cbr.body.slice(0, 200)).toBe(200);
    expect(cbr.headers['content-type']).toMatch(/^image\//);
    const pdf = await t.request({ method: 'GET', url: `/api/v1/books/${book('Alpha 03.pdf').id}/pages/1`, headers: t.headers });
    expect(pdf.statusCode, pdf.body.slice(0, 200)).toBe(200);
    expect(pdf.headers['content-type']).toMatch(/^image\//);
    const thumb = await t.request({ method: 'GET', url: `/api/v1/books/${book('Alpha 01.cbz').id}/thumbnail`, headers: t.headers });
    expect(thumb.statusCode).toBe(200);
    expect(thumb.rawPayload.length).toBeGreaterThan(100);
  });

  it('writes an edit back into the CBZ (yazl)', async () => {
    const cbz = book('Alpha 01.cbz');
    const edited = await api<BookBody>(t, 'PATCH', `/api/v1/books/${cbz.id}`, { title: 'Written by the bundle' });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    const taskId = edited.body.write_back?.task_ids[0];
    expect(taskId).toBeDefined();
    const task = await waitForTask(t, taskId!);
    expect(task.status, task.error ?? '').toBe('completed');
    expect((task.result as unknown as { written: string[] }).written).toEqual([cbz.id]);
    const entries = await zipEntries(readFileSync(path.join(dir, cbz.path)));
    expect(entries.get('ComicInfo.xml')?.toString('utf8')).toContain('<Title>Written by the bundle</Title>');
  });

  it('sends a Kobo a comic as a fixed-layout EPUB and a novel as KEPUB (yazl, sharp)', async () => {
    const { key } = await createApiKey(t, t.headers, { name: 'kobo' });
    const comic = await t.request({ method: 'GET', url: `/kobo/${key}/v1/books/${book('Alpha 01.cbz').id}/file/epub3fl` });
    expect(comic.statusCode, comic.body.slice(0, 300)).toBe(200);
    expect(comic.headers['content-type']).toBe('application/epub+zip');
    expect((await zipEntries(comic.rawPayload)).get('mimetype')?.toString()).toBe('application/epub+zip');
    const novel = await t.request({ method: 'GET', url: `/kobo/${key}/v1/books/${book('Novel.epub').id}/file/kepub` });
    expect(novel.statusCode).toBe(200);
    expect(novel.headers['content-disposition']).toContain('.kepub.epub');
    const chapters = [...(await zipEntries(novel.rawPayload)).entries()].filter(([name]) => name.endsWith('.xhtml'));
    expect(chapters.some(([, data]) => data.toString('utf8').includes('koboSpan'))).toBe(true);
  });

  it('answers metrics (prom-client) and the API description (@fastify/swagger)', async () => {
    const metrics = await t.request({ method: 'GET', url: '/api/v1/metrics/prometheus', headers: t.headers });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toContain('colophon_http_request_duration_seconds');
    const docs = await t.request({ method: 'GET', url: '/docs/json' });
    expect(docs.statusCode).toBe(200);
    expect(docs.json<{ info: { title: string } }>().info.title).toContain('Colophon');
  });

  it('tests a sign-in provider (openid-client) and sends e-mail (nodemailer)', async () => {
    const created = await t.request({
      method: 'POST',
      url: '/api/v1/admin/oidc/providers',
      headers: t.headers,
      payload: {
        id: 'built',
        name: 'Built',
        issuer: idp.issuer,
        client_id: 'colophon-built',
        client_secret: 'built-secret',
        allow_http: true,
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const report = await t.request({ method: 'POST', url: '/api/v1/admin/oidc/providers/built/test', headers: t.headers });
    expect(report.statusCode, report.body).toBe(200);
    const checks = report.json<{ checks: Array<{ ok: boolean; name?: string }> }>().checks;
    expect(checks[0]?.ok, JSON.stringify(checks)).toBe(true);
    const registered = await t.request({
      method: 'POST',
      url: '/api/v1/auth/register',
      payload: { username: 'newcomer', email: 'newcomer@example.org', password: 'a long enough password' },
    });
    expect(registered.statusCode, registered.body).toBeLessThan(300);
    const deadline = Date.now() + 10_000;
    while (mail.messages.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(mail.messages.join('\n')).toContain('Verify your Colophon account');
  });

  it('sees a file added to a watched library (@parcel/watcher) and catalogs it', async () => {
    await makeCbz(path.join(dir, 'Alpha'), 'Alpha 04.cbz', { pages: 1, comicInfo: comicInfoXml({ Series: 'Alpha', Number: 4 }) });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const list = await api<Paged<BookBody>>(t, 'GET', `/api/v1/books?library_id=${libraryId}&pageSize=50`);
      if (list.body.data.some((b) => b.path.endsWith('Alpha 04.cbz'))) break;
      if (Date.now() > deadline) throw new Error('the added file was not cataloged within 30 s');
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 40_000);
});
