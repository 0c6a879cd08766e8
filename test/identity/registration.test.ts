import nodemailer, { type SendMailOptions } from 'nodemailer';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { adminHeaders } from '../helpers/auth.js';

interface Captured {
  to: string;
  text: string;
}

/** nodemailer's JSON transport, recording every message the server sends. */
function capturingTransport() {
  const sent: Captured[] = [];
  const transport = nodemailer.createTransport({ jsonTransport: true });
  const send = transport.sendMail.bind(transport);
  transport.sendMail = (async (mail: SendMailOptions) => {
    const info = await send(mail);
    const message = JSON.parse(String(info.message)) as { to: Array<{ address: string }>; text: string };
    sent.push({ to: message.to[0]!.address, text: message.text });
    return info;
  }) as typeof transport.sendMail;
  return { transport, sent };
}

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const account = { username: 'newreader', email: 'new.reader@example.org', password: 'reader-password' };

describe('POST /auth/register is governed by registration_enabled (default off)', () => {
  it('answers 403 with a clear message when registration is off', async () => {
    t = await createTestApp();
    await adminHeaders(t);
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: account });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toMatch(/Registration is disabled/);
  });

  it('creates a reader who can log in when registration is on', async () => {
    t = await createTestApp({ auth: { registration_enabled: true } });
    await adminHeaders(t);
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: account });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ user: { username: 'newreader', role: 'reader' }, verification_required: false });
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'newreader', password: account.password },
    });
    expect(login.statusCode).toBe(200);
    const again = await t.app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: { ...account, email: 'x@example.org' } });
    expect(again.statusCode).toBe(409);
    const sameMail = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/register',
      payload: { ...account, username: 'other', email: 'NEW.reader@example.org' },
    });
    expect(sameMail.statusCode).toBe(409);
  });
});

describe('e-mail verification', () => {
  it('blocks login with 403 EmailNotVerified until POST /auth/verify-email with the mailed token', async () => {
    const mail = capturingTransport();
    t = await createTestApp({ auth: { registration_enabled: true, email_verification_required: true } }, { mailTransport: mail.transport });
    await adminHeaders(t);
    const reg = await t.app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: account });
    expect(reg.statusCode).toBe(201);
    expect(reg.json().verification_required).toBe(true);
    expect(mail.sent).toHaveLength(1);
    expect(mail.sent[0]!.to).toBe(account.email);

    const blocked = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: account.username, password: account.password },
    });
    expect(blocked.statusCode).toBe(403);
    expect(blocked.json().error).toBe('EmailNotVerified');

    // resend: 202 whatever the address; a second message goes only to the real account
    for (const email of [account.email, 'nobody@example.org']) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/auth/resend-verification', payload: { email } });
      expect(res.statusCode).toBe(202);
    }
    expect(mail.sent).toHaveLength(2);

    const token = /token=([A-Za-z0-9_-]+)/.exec(mail.sent[1]!.text)![1]!;
    const bad = await t.app.inject({ method: 'POST', url: '/api/v1/auth/verify-email', payload: { token: 'not-a-token' } });
    expect(bad.statusCode).toBe(400);
    const ok = await t.app.inject({ method: 'POST', url: '/api/v1/auth/verify-email', payload: { token } });
    expect(ok.statusCode).toBe(200);
    const reused = await t.app.inject({ method: 'POST', url: '/api/v1/auth/verify-email', payload: { token } });
    expect(reused.statusCode).toBe(400);

    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: account.username, password: account.password },
    });
    expect(login.statusCode).toBe(200);
  });
});

describe('registration does not tell which usernames or e-mail addresses exist', () => {
  it('a taken username and a taken e-mail address get the same 409 body; the owner of the address is mailed', async () => {
    const mail = capturingTransport();
    t = await createTestApp({ auth: { registration_enabled: true } }, { mailTransport: mail.transport });
    await adminHeaders(t);
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: account })).statusCode).toBe(201);
    const takenName = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/register',
      payload: { ...account, email: 'someone.else@example.org' },
    });
    const takenMail = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/register',
      payload: { ...account, username: 'someone_else', email: 'NEW.reader@example.org' },
    });
    expect(takenName.statusCode).toBe(409);
    expect(takenMail.statusCode).toBe(409);
    expect(takenMail.json()).toEqual(takenName.json());
    expect(takenName.json()).toMatchObject({ error: 'Conflict', details: null });
    expect(takenName.json().message).not.toMatch(/username is|e-mail address is/i);
    // Only the attempt with the existing address mails its owner; nothing goes to the address typed for the taken name.
    expect(mail.sent.map((m) => m.to)).toEqual([account.email]);
    expect(mail.sent[0]!.text).toMatch(/tried to create a new Colophon account/);
  });
});

describe('a mail server that cannot be reached', () => {
  it('registration still answers 201 (the account exists; the mail is logged), and resending says 503 with Retry-After instead of 500', async () => {
    // A real SMTP transport pointed at a closed port: the send fails with ECONNREFUSED.
    const down = nodemailer.createTransport({ host: '127.0.0.1', port: 1, connectionTimeout: 2000 });
    t = await createTestApp({ auth: { registration_enabled: true, email_verification_required: true } }, { mailTransport: down });
    await adminHeaders(t);
    const reg = await t.app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: account });
    expect(reg.statusCode).toBe(201);
    expect(reg.json().verification_required).toBe(true);

    const resend = await t.app.inject({ method: 'POST', url: '/api/v1/auth/resend-verification', payload: { email: account.email } });
    expect(resend.statusCode).toBe(503);
    expect(resend.headers['retry-after']).toBe('60');
    expect(resend.json()).toMatchObject({ error: 'ServiceUnavailable', message: expect.stringContaining('mail server') });
  });
});
