import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { languageOf } from '../../src/i18n/languages.js';
import { fill, localize, textIn } from '../../src/i18n/messages.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ADMIN, adminHeaders, basic, createUser } from '../helpers/auth.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

describe("the request's language (Accept-Language)", () => {
  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['fr-CA,fr;q=0.9,en;q=0.8', 'fr'],
    ['en-US,en;q=0.9', 'en'],
    ['de;q=0.1, ja;q=0.9', 'ja'],
    ['zh-CN,zh;q=0.9', 'zh-Hans'],
    ['zh-TW', 'en'],
    ['pt-PT', 'pt-BR'],
    ['PT-br', 'pt-BR'],
    ['sv-SE, ko;q=0.5', 'ko'],
    ['ar-EG', 'ar'],
    ['*', 'en'],
    ['x;;;==,,', 'en'],
  ] as const)('%s is %s', (header, language) => {
    expect(languageOf(header)).toBe(language);
  });
});

describe('the server catalogue', () => {
  it('renders a thrown English message in the translation of the template it was made from', () => {
    // "{0} not found" with a catalogued noun: both parts are translated.
    const french = localize('fr', 'Series not found');
    expect(french).toBe(textIn('fr', '{0} not found', [textIn('fr', 'Series')]));
    expect(french).not.toMatch(/not found/);
    // A value that is not a catalogue text passes through as written.
    expect(localize('de', 'Unknown setting: colour_mode')).toBe(textIn('de', 'Unknown setting: {0}', ['colour_mode']));
    expect(localize('de', 'Unknown setting: colour_mode')).toContain('colour_mode');
    // Literal braces of a message (doubled in the catalogue) are found and kept.
    const braces = localize('ja', 'filter.value has unknown keys x; an author is {name, role}');
    expect(braces).toBe(fill(textIn('ja', '{0}.value has unknown keys {1}; an author is {{name, role}}', ['filter', 'x'])));
    expect(braces).toContain('{name, role}');
    // English stays English; a message no template fits comes back as it was.
    expect(localize('en', 'Series not found')).toBe('Series not found');
    expect(localize('fr', 'A message from somewhere else')).toBe('A message from somewhere else');
  });

  it('is complete in every language: npm run i18n:check passes on this checkout', async () => {
    const { stdout } = await run(process.execPath, ['scripts/server-i18n.mjs', '--check'], { cwd: ROOT });
    expect(stdout).toMatch(/all 11 translations complete/);
  });

  it('fails the check when the code says a message the catalogue does not have', async () => {
    const copy = await mkdtemp(path.join(os.tmpdir(), 'colophon-i18n-src-'));
    try {
      await cp(path.join(ROOT, 'src'), copy, { recursive: true });
      await writeFile(
        path.join(copy, 'catalog', 'new-feature.ts'),
        "import { badRequest } from '../http/errors.js';\nexport const refuse = () => badRequest('A message nobody has translated yet');\n",
      );
      const failed = await run(process.execPath, ['scripts/server-i18n.mjs', '--check'], {
        cwd: ROOT,
        env: { ...process.env, COLOPHON_I18N_SRC: copy },
      }).then(
        () => undefined,
        (err: { code: number; stderr: string }) => err,
      );
      expect(failed?.code).toBe(1);
      expect(failed?.stderr).toContain('"A message nobody has translated yet"');
      expect(failed?.stderr).toMatch(/not in the catalogue/);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });
});

describe('server texts over HTTP follow Accept-Language', () => {
  let t: TestApp;
  let base: string;
  const sent: { to: string; subject: string; text: string }[] = [];

  beforeAll(async () => {
    const transport = nodemailer.createTransport({ jsonTransport: true });
    const send = transport.sendMail.bind(transport);
    transport.sendMail = (async (mail: SendMailOptions) => {
      const info = await send(mail);
      const message = JSON.parse(String(info.message)) as { to: Array<{ address: string }>; subject: string; text: string };
      sent.push({ to: message.to[0]!.address, subject: message.subject, text: message.text });
      return info;
    }) as typeof transport.sendMail;
    t = await createTestApp({ auth: { registration_enabled: true, email_verification_required: true } }, { mailTransport: transport });
    await adminHeaders(t);
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (url: string, headers: Record<string, string> = {}) => fetch(`${base}${url}`, { headers });
  const json = async (response: Response) => (await response.json()) as { error: string; message: string; details: unknown };

  it('an error message: in the caller language, English without the header', async () => {
    const auth = await adminHeaders(t);
    const id = '00000000-0000-4000-8000-000000000000';
    const english = await get(`/api/v1/series/${id}`, auth);
    expect(english.status).toBe(404);
    expect((await json(english)).message).toBe('Series not found');
    for (const language of ['fr', 'de', 'ja', 'ar'] as const) {
      const response = await get(`/api/v1/series/${id}`, { ...auth, 'accept-language': language });
      expect(response.status).toBe(404);
      const body = await json(response);
      expect(body.error).toBe('NotFound');
      expect(body.message).toBe(textIn(language, '{0} not found', [textIn(language, 'Series')]));
      expect(body.message).not.toMatch(/Series|not found/);
    }
    const unknown = await get('/api/v1/no-such-route', { 'accept-language': 'ko-KR,ko;q=0.9' });
    expect((await json(unknown)).message).toBe(textIn('ko', 'No route for {0} {1}', ['GET', '/api/v1/no-such-route']));
  });

  it('a failed sign-in and a refused request body: the catalogue and zod speak the same language', async () => {
    const wrong = await fetch(`${base}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'accept-language': 'es-ES,es;q=0.9' },
      body: JSON.stringify({ username: ADMIN.username, password: 'not the password' }),
    });
    expect(wrong.status).toBe(401);
    expect((await json(wrong)).message).toBe(textIn('es', 'Invalid username or password'));

    const refused = (language?: string) =>
      fetch(`${base}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(language ? { 'accept-language': language } : {}) },
        body: JSON.stringify({ username: 42, password: 'x' }),
      }).then(json);
    const english = await refused();
    const german = await refused('de-DE');
    const detailsOf = (body: { details: unknown }) => (body.details as { field: string; message: string }[])[0]!;
    expect(detailsOf(german).field).toBe(detailsOf(english).field);
    expect(detailsOf(english).message).toMatch(/expected string/i);
    expect(detailsOf(german).message).not.toBe(detailsOf(english).message);
    expect(detailsOf(german).message).toMatch(/string/);
    expect(german.message).toBe(
      textIn('de', 'Invalid request: {0} field "{1}": {2}', ['body', detailsOf(german).field, detailsOf(german).message]),
    );
  });

  it('OPDS feed titles in the reader language, each language its own validator (Vary: Accept-Language)', async () => {
    const auth = basic(ADMIN.username, ADMIN.password);
    const english = await get('/opds/v1.2/catalog', auth);
    const french = await get('/opds/v1.2/catalog', { ...auth, 'accept-language': 'fr' });
    expect(french.headers.get('vary')).toMatch(/Accept-Language/);
    const [englishXml, frenchXml] = [await english.text(), await french.text()];
    expect(englishXml).toContain('<title>Keep reading</title>');
    expect(frenchXml).toContain(`<title>${textIn('fr', 'Keep reading')}</title>`);
    expect(frenchXml).not.toContain('<title>Keep reading</title>');
    expect(french.headers.get('etag')).not.toBe(english.headers.get('etag'));

    const v2 = await get('/opds/v2/catalog', { ...auth, 'accept-language': 'zh-CN' });
    const feed = (await v2.json()) as { navigation: { title: string }[] };
    expect(feed.navigation.map((n) => n.title)).toContain(textIn('zh-Hans', 'All series'));
    expect(feed.navigation.map((n) => n.title)).not.toContain('All series');
  });

  it("e-mails: in the request's language, or the one the recipient chose", async () => {
    const register = (payload: object, language: string) =>
      fetch(`${base}/api/v1/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'accept-language': language },
        body: JSON.stringify(payload),
      });
    const account = { username: 'lectrice', email: 'lectrice@example.org', password: 'un mot de passe long' };
    expect((await register(account, 'fr-FR')).status).toBe(201);
    const verification = sent.find((m) => m.to === account.email)!;
    expect(verification.subject).toBe(textIn('fr', 'Verify your Colophon account'));
    const template =
      'Hello {0},\n\nconfirm your e-mail address by opening this link within 24 hours:\n{1}\n\nOr send the token to POST /api/v1/auth/verify-email: {2}\n';
    const token = /verify-email\?token=([^\s]+)/.exec(verification.text)![1]!;
    expect(verification.text).toBe(textIn('fr', template, ['lectrice', `${base}/verify-email?token=${token}`, decodeURIComponent(token)]));
    expect(verification.text).not.toContain('confirm your e-mail address');
    expect(verification.text).toMatch(/verify-email\?token=/);

    // Someone registers with the address of an account whose owner chose German: the notice is in German.
    const owner = await createUser(t, 'reader');
    const put = await fetch(`${base}/api/v1/user/preferences/language`, {
      method: 'PUT',
      headers: { ...owner.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ value: 'de' }),
    });
    expect(put.status).toBe(200);
    const ownerEmail = `${owner.username}@example.org`;
    const clash = await register({ username: 'someone', email: ownerEmail, password: 'another long password' }, 'ja');
    expect(clash.status).toBe(409);
    expect((await json(clash)).message).toBe(
      textIn(
        'ja',
        'This username or e-mail address cannot be registered; choose another username, or log in if you already have an account',
      ),
    );
    const notice = sent.find((m) => m.to === ownerEmail)!;
    expect(notice.subject).toBe(textIn('de', 'Someone tried to register with your e-mail address'));
  });
});
