import type { Locator, Page } from '@playwright/test';
import { ADMIN, apiFailure, expect, headerMenu, serverUrl, signIn, test } from './fixtures.js';
import { createUserByApi, expectNoSeriousA11yViolations, unique } from './admin-fixtures.js';

interface Canvas {
  width: number;
  height: number;
  getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null;
}

/** 'drawn' once a QR canvas holds both dark and light modules. */
const qrState = (qr: Locator) =>
  qr.evaluate((element) => {
    // Runs in the browser; the e2e project compiles without the DOM library.
    const canvas = element as unknown as Canvas;
    const ctx = canvas.getContext('2d');
    if (!ctx || canvas.width === 0) return 'blank';
    const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
    let dark = 0;
    for (let i = 0; i < data.length; i += 4) if ((data[i] ?? 255) < 100) dark += 1;
    return dark > 100 && dark < data.length / 4 - 100 ? 'drawn' : 'blank';
  });

interface ServerAddresses {
  base_url: string;
  public_url_set: boolean;
  loopback: boolean;
  lan_urls: string[];
}

/** What the server says other devices reach it by (`GET /api/v1/me/server-addresses`), asked as the browser does. */
async function serverAddresses(page: Page, token: string): Promise<ServerAddresses> {
  const res = await page.request.get(`${serverUrl()}/api/v1/me/server-addresses`, { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status()).toBe(200);
  return (await res.json()) as ServerAddresses;
}

/**
 * The address a new key's QR code and fields give another device. The e2e server is opened at 127.0.0.1, which no
 * phone reaches: its first LAN address when it has one, else that loopback address (said to be one).
 */
async function sharedAddress(page: Page, token: string): Promise<string> {
  const addresses = await serverAddresses(page, token);
  return addresses.public_url_set || !addresses.loopback ? addresses.base_url : (addresses.lan_urls[0] ?? addresses.base_url);
}

/** Creates a key with the Reader app preset on the API keys screen; returns the panel that shows it once. */
async function createReaderKey(page: Page): Promise<Locator> {
  await page.getByLabel('Name', { exact: true }).fill(unique('Phone '));
  await page.getByRole('radio', { name: /Reader app/ }).check();
  await page.getByRole('button', { name: 'Create key' }).click();
  const created = page.getByRole('region', { name: 'New API key' });
  await expect(created.getByRole('heading', { name: /^Key “.*” created$/ })).toBeVisible();
  return created;
}

test.describe('Account', () => {
  test('preferences: the theme changes at once, is saved, and can be reset', async ({ page }) => {
    await signIn(page);
    await page.goto('/account');
    await expect(page.getByRole('heading', { name: 'Preferences' })).toBeVisible();
    const theme = page.getByLabel('Theme', { exact: true });
    await theme.selectOption('dark');
    await expect(page.getByRole('status').filter({ hasText: 'Saved' }).first()).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await page.reload();
    await expect(page.getByLabel('Theme', { exact: true })).toHaveValue('dark');
    await page.getByRole('button', { name: 'Reset Theme to its default' }).click();
    await expect(page.getByLabel('Theme', { exact: true })).toHaveValue('system');
    await expect(page.locator('html')).not.toHaveAttribute('data-theme', 'dark');
    await expectNoSeriousA11yViolations(page);
  });

  test('preferences the web app honours: the library opened first, hiding read books; none offered that it ignores', async ({
    page,
    browser,
  }) => {
    const adminToken = await signIn(page);
    const user = { username: unique('prefs'), password: 'prefs password 1' };
    await createUserByApi(page, adminToken, user);
    const context = await browser.newContext({ baseURL: serverUrl() });
    const me = await context.newPage();
    const token = await signIn(me, { username: user.username, password: user.password, email: '' });
    await me.goto('/account');
    await expect(me.getByRole('heading', { name: 'Preferences' })).toBeVisible();
    // Not offered as if it did something: the grid loads as it scrolls. The language is the picker's (languages.spec.ts).
    await expect(me.getByLabel('Items per page')).toHaveCount(0);
    await expect(me.getByLabel('Language', { exact: true })).toHaveCount(1);
    await expect(me.getByText(/null for all libraries/)).toHaveCount(0);

    await me.getByLabel('Library opened first').selectOption({ label: 'Comics' });
    await expect(me.getByRole('status').filter({ hasText: 'Saved' }).first()).toBeVisible();
    await me.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Libraries' }).click();
    await expect(me.getByRole('heading', { name: 'Comics', level: 1 })).toBeVisible();
    await expect(me).toHaveURL(/\/libraries\/[0-9a-f-]{36}/);

    await me.goto('/account');
    await me.getByLabel('Show books already read').uncheck();
    await expect(me.getByRole('status').filter({ hasText: 'Saved' }).first()).toBeVisible();
    // One book of Saga read: left out of the series page and the books grid, with a note that shows it again.
    const headers = { Authorization: `Bearer ${token}` };
    const saga = (
      (await (await me.request.post(`${serverUrl()}/api/v1/series/list`, { headers, data: { fullTextSearch: 'Saga' } })).json()) as {
        data: Array<{ id: string }>;
      }
    ).data[0]!;
    const books = (await (await me.request.get(`${serverUrl()}/api/v1/series/${saga.id}/books`, { headers })).json()) as {
      data: Array<{ id: string }>;
    };
    expect((await me.request.post(`${serverUrl()}/api/v1/books/${books.data[0]!.id}/read`, { headers })).status()).toBeLessThan(300);
    await me.goto(`/series/${saga.id}`);
    await expect(me.getByTestId('book-row')).toHaveCount(2);
    await expect(me.getByText('1 book you have read is hidden')).toBeVisible();
    await me.getByRole('button', { name: 'Show it' }).click();
    await expect(me.getByTestId('book-row')).toHaveCount(3);

    await me.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Libraries' }).click();
    await me.getByRole('group', { name: 'Show' }).getByRole('button', { name: 'Books' }).click();
    await expect(me.getByText('Books you have read are hidden')).toBeVisible();
    await expect(me.getByText(/^6 books$/)).toBeVisible();
    await me.getByRole('button', { name: 'Show them' }).click();
    await expect(me.getByText(/^7 books$/)).toBeVisible();
    await context.close();
  });

  test('API key @phone: created with a preset and an expiry, shown once with a QR code for OPDS apps, works over OPDS, then revoked', async ({
    page,
  }) => {
    const token = await signIn(page);
    const shared = await sharedAddress(page, token);
    // Reached from the header on every screen size: the user's name leads to the account, then its tab.
    await page.goto('/');
    // On a phone it is in the header's menu.
    await (await headerMenu(page)).getByRole('link', { name: 'admin, your account' }).click();
    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'API keys' }).click();
    await expect(page).toHaveURL(/\/account\/api-keys$/);
    await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();
    const name = unique('Phone ');
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByRole('radio', { name: /Reader app/ }).check();
    await page.getByLabel('Expires after').selectOption('90d');
    await page.getByRole('button', { name: 'Create key' }).click();

    const created = page.getByRole('region', { name: 'New API key' });
    await expect(created.getByRole('heading', { name: `Key “${name}” created` })).toBeVisible();
    const key = await created.getByLabel('API key').inputValue();
    expect(key).toMatch(/^colophon_[A-Za-z0-9]{8}_\S+$/);
    await expect(created.getByLabel('OPDS catalog URL')).toHaveValue(`${shared}/opds/v1.2/catalog`);
    await expect(created.getByLabel('Username')).toHaveValue('api');

    // The QR code is drawn: a square canvas with both dark and light modules.
    const qr = created.getByRole('img', { name: /QR code with the OPDS address/ });
    await expect(qr).toBeVisible();
    await expect.poll(() => qrState(qr)).toBe('drawn');
    await created.getByRole('button', { name: 'Copy API key' }).click();
    await expect(created.getByRole('button', { name: 'Copied API key' })).toBeVisible();
    await expectNoSeriousA11yViolations(page);

    // What the QR code carries works: the OPDS catalog with the key as Basic credentials (asked at 127.0.0.1: the e2e
    // server listens there only, whatever address it gives phones).
    const basic = `Basic ${Buffer.from(`api:${key}`).toString('base64')}`;
    expect((await page.request.get(`${serverUrl()}/opds/v1.2/catalog`, { headers: { Authorization: basic } })).status()).toBe(200);

    await created.getByRole('button', { name: 'Done' }).click();
    const row = page.getByRole('list', { name: 'API keys' }).getByRole('listitem').filter({ hasText: name });
    await expect(row).toContainText('expires');
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: `Revoke ${name}` }).click();
    await expect(row).toHaveCount(0);
    expect((await page.request.get(`${serverUrl()}/opds/v1.2/catalog`, { headers: { Authorization: basic } })).status()).toBe(401);
  });

  test('KOReader: a new key shows the sync server address to paste, with a QR code, and KOReader is authorised by it', async ({ page }) => {
    const token = await signIn(page);
    const shared = await sharedAddress(page, token);
    await page.goto('/account/api-keys');
    const name = unique('Kobo ');
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByRole('radio', { name: /Reader app/ }).check();
    await page.getByRole('button', { name: 'Create key' }).click();

    const sync = page.getByRole('group', { name: 'KOReader progress sync' });
    const key = await page.getByRole('region', { name: 'New API key' }).getByLabel('API key').inputValue();
    const url = `${shared}/koreader/${key}`;
    await expect(sync.getByRole('textbox', { name: 'KOReader sync server' })).toHaveValue(url);
    const qr = sync.getByRole('img', { name: /QR code with the KOReader sync server/ });
    await expect(qr).toHaveAttribute('data-qr-text', url);
    await expect.poll(() => qrState(qr)).toBe('drawn');
    await expectNoSeriousA11yViolations(page);
    // What KOReader does with that address: its login check answers in the kosync protocol (asked at 127.0.0.1, where
    // the e2e server listens).
    const auth = await page.request.get(`${serverUrl()}/koreader/${key}/users/auth`, {
      headers: { Accept: 'application/vnd.koreader.v1+json' },
    });
    expect(auth.status()).toBe(200);
    expect(await auth.json()).toEqual({ authorized: 'OK' });

    // A key without progress permissions gets no sync address, and is told why.
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByLabel('Name', { exact: true }).fill(unique('Script '));
    await page.getByRole('radio', { name: /Automation script/ }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect(page.getByText('This key cannot sync reading progress')).toBeVisible();
    await expect(page.getByRole('group', { name: 'KOReader progress sync' })).toHaveCount(0);
  });

  test('Kobo: adding one shows the api_endpoint line to paste, what syncs is saved, and the endpoint answers as a Kobo store', async ({
    page,
  }) => {
    const token = await signIn(page);
    const shared = await sharedAddress(page, token);
    await page.goto('/account');
    // Its own tab of the account, as the README says (Account → Kobo e-readers).
    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Kobo e-readers' }).click();
    await expect(page).toHaveURL(/\/account\/kobo$/);
    const kobo = page.getByRole('region', { name: 'Kobo e-readers' });
    const name = unique('Libra ');
    await kobo.getByRole('form', { name: 'Add a Kobo' }).getByLabel('Device name').fill(name);
    await kobo.getByRole('button', { name: 'Add a Kobo' }).click();

    const connect = kobo.getByLabel('Connect your Kobo');
    const field = connect.getByRole('textbox', { name: 'Line for Kobo eReader.conf' });
    await expect(field).toHaveValue(/^api_endpoint=/);
    const line = await field.inputValue();
    // The page was opened at 127.0.0.1, which no Kobo reaches: the line names the address other devices use (the
    // public URL, else the server's first LAN address), then /kobo/<the new key>. A server that listens on loopback
    // only (as the e2e one may) has none: then the host is "your-server", and the card says to replace it.
    const [, at, key] = /^api_endpoint=(.+)\/kobo\/([^/]+)$/.exec(line) ?? [];
    expect(at).not.toMatch(/\/\/(127\.|localhost|\[::1\])/);
    const sharedIsLoopback = /\/\/(127\.|localhost|\[::1\])/.test(shared);
    const koboAt = sharedIsLoopback ? shared.replace(/\/\/[^:/]+/, '//your-server') : shared;
    expect(at).toBe(koboAt);
    if (sharedIsLoopback) await expect(connect.getByText(/replace it with the server.s name or address on your network/)).toBeVisible();
    expect(key).toMatch(/^\S{20,}$/);
    await expect(connect.getByRole('button', { name: 'Copy Line for Kobo eReader.conf' })).toBeVisible();
    await expectNoSeriousA11yViolations(page);
    await connect.getByRole('button', { name: 'Done' }).click();

    // What syncs: only the want-to-read list, in shades of grey; kept after a reload.
    const card = () => kobo.getByRole('list', { name: 'Kobo devices' }).getByRole('listitem').filter({ hasText: name });
    await expect(card().getByText('not synced yet')).toBeVisible();
    await card().getByRole('radio', { name: 'Only what I choose' }).check();
    await card().getByRole('checkbox', { name: 'Want to read' }).check();
    await card()
      .getByRole('checkbox', { name: /shades of grey/ })
      .check();
    // How books reach it: KEPUB on by default, turned off here; comics sized for a Clara, chosen with the keyboard.
    const kepub = card().getByRole('checkbox', { name: /EPUBs as KEPUB/ });
    await expect(kepub).toBeChecked();
    await kepub.uncheck();
    const screen = card().getByRole('combobox', { name: 'Screen size for comics and PDFs' });
    await expect(screen).toHaveValue('1264x1680');
    await screen.focus();
    await page.keyboard.press('ArrowUp');
    await expect(screen).toHaveValue('1072x1448');
    await card()
      .getByRole('button', { name: `Save settings of ${name}` })
      .click();
    await expect(card().getByRole('button', { name: `Saved settings of ${name}` })).toBeVisible();
    await page.reload();
    await expect(card().getByRole('radio', { name: 'Only what I choose' })).toBeChecked();
    await expect(card().getByRole('checkbox', { name: 'Want to read' })).toBeChecked();
    await expect(card().getByRole('checkbox', { name: /shades of grey/ })).toBeChecked();
    await expect(card().getByRole('checkbox', { name: /EPUBs as KEPUB/ })).not.toBeChecked();
    await expect(card().getByRole('combobox', { name: 'Screen size for comics and PDFs' })).toHaveValue('1072x1448');

    // What the Kobo asks first, at the pasted endpoint (asked at 127.0.0.1, where the e2e server listens): its resource
    // map, with the api token header it expects.
    const endpoint = `${serverUrl()}${line.slice('api_endpoint='.length + koboAt.length)}`;
    const init = await page.request.get(`${endpoint}/v1/initialization`, { headers: { 'x-kobo-deviceid': 'e2e-kobo' } });
    expect(init.status()).toBe(200);
    expect(init.headers()['x-kobo-apitoken']).toBe('e30=');
    expect(((await init.json()) as { Resources: Record<string, string> }).Resources.library_sync).toBe(`${endpoint}/v1/library/sync`);
  });

  test('Kobo: a reader without kobo-sync (an administrator grants it) is told to ask one, and offered no device', async ({
    page,
    browser,
  }) => {
    const adminToken = await signIn(page);
    const user = { username: unique('nokobo'), password: 'nokobo password 1' };
    await createUserByApi(page, adminToken, user);
    const context = await browser.newContext({ baseURL: serverUrl() });
    const me = await context.newPage();
    await signIn(me, { username: user.username, password: user.password, email: '' });
    await me.goto('/account/kobo');
    const kobo = me.getByRole('region', { name: 'Kobo e-readers' });
    await expect(kobo.getByText('Kobo sync is not enabled for your account — ask an administrator.')).toBeVisible();
    await expect(kobo.getByRole('form', { name: 'Add a Kobo' })).toHaveCount(0);
    await context.close();
  });

  test('a key made on the server itself (127.0.0.1) says that address is for this computer and what to set instead; keyboard; axe', async ({
    page,
  }) => {
    const token = await signIn(page);
    const addresses = await serverAddresses(page, token);
    // The e2e server is opened at 127.0.0.1 with no server.public_url: the address a newcomer sees on the server itself.
    expect(addresses).toMatchObject({ base_url: serverUrl(), public_url_set: false, loopback: true });
    await page.goto('/account/api-keys');
    const created = await createReaderKey(page);
    const key = await created.getByLabel('API key').inputValue();
    await expect(created.getByText(`This address, ${serverUrl()}, only works on this computer`, { exact: false })).toBeVisible();
    const opds = created.getByLabel('OPDS catalog URL');
    const qr = created.getByRole('img', { name: /QR code with the OPDS address/ });
    const sync = created.getByRole('group', { name: 'KOReader progress sync' });

    const lan = addresses.lan_urls[0];
    if (lan === undefined) {
      await expect(created.getByText(/this server offers no address on your network/)).toBeVisible();
      await expect(opds).toHaveValue(`${serverUrl()}/opds/v1.2/catalog`);
      await expectNoSeriousA11yViolations(page);
      // The e2e server listens on 127.0.0.1 only, so the server offers no LAN address: the note says what to set.
      // Choosing among LAN addresses is the next test's (with the addresses answered by a route).
      return;
    }
    await expect(created.getByText('A phone or e-reader on your network can use:')).toBeVisible();
    const choices = created.getByRole('group', { name: 'Address for other devices' });
    await expect(choices.getByRole('radio')).toHaveCount(addresses.lan_urls.length);
    await expect(choices.getByRole('radio', { name: lan, exact: true })).toBeChecked();
    // The QR codes and the fields to copy carry the LAN address, not 127.0.0.1.
    await expect(opds).toHaveValue(`${lan}/opds/v1.2/catalog`);
    const qrText = await qr.getAttribute('data-qr-text');
    expect(new URL(qrText ?? '').origin).toBe(lan);
    await expect(sync.getByRole('textbox', { name: 'KOReader sync server' })).toHaveValue(`${lan}/koreader/${key}`);
    await expect(sync.getByRole('img', { name: /QR code with the KOReader sync server/ })).toHaveAttribute(
      'data-qr-text',
      `${lan}/koreader/${key}`,
    );
    await expect.poll(() => qrState(qr)).toBe('drawn');

    // By keyboard: from the key's copy button, Tab reaches the chosen address.
    await created.getByRole('button', { name: 'Copy API key' }).focus();
    await page.keyboard.press('Tab');
    await expect(choices.getByRole('radio', { name: lan, exact: true })).toBeFocused();
    await expectNoSeriousA11yViolations(page);
  });

  test("a new key's addresses: switched by keyboard between LAN addresses; server.public_url; none found; not loaded", async ({ page }) => {
    await signIn(page);
    const port = new URL(serverUrl()).port;
    const loopback = { base_url: serverUrl(), public_url_set: false, loopback: true };
    let answer: ServerAddresses | null = null;
    await page.route('**/api/v1/me/server-addresses', (route) =>
      answer ? route.fulfill({ json: answer }) : apiFailure(500, 'Internal failure')(route),
    );

    // Two LAN addresses: the first is chosen; the arrow keys switch the QR code and the fields to the other.
    const [first, second] = [`http://192.168.1.20:${port}`, `http://10.0.0.5:${port}`];
    answer = { ...loopback, lan_urls: [first, second] };
    await page.goto('/account/api-keys');
    let created = await createReaderKey(page);
    const key = await created.getByLabel('API key').inputValue();
    const choices = created.getByRole('group', { name: 'Address for other devices' });
    await expect(choices.getByRole('radio', { name: first })).toBeChecked();
    await expect(created.getByLabel('OPDS catalog URL')).toHaveValue(`${first}/opds/v1.2/catalog`);
    await choices.getByRole('radio', { name: first }).focus();
    await page.keyboard.press('ArrowDown');
    await expect(choices.getByRole('radio', { name: second })).toBeChecked();
    await expect(choices.getByRole('radio', { name: second })).toBeFocused();
    await expect(created.getByLabel('OPDS catalog URL')).toHaveValue(`${second}/opds/v1.2/catalog`);
    await expect(created.getByRole('img', { name: /QR code with the OPDS address/ })).toHaveAttribute(
      'data-qr-text',
      `http://api:${key}@10.0.0.5:${port}/opds/v1.2/catalog`,
    );
    await expect(created.getByRole('textbox', { name: 'KOReader sync server' })).toHaveValue(`${second}/koreader/${key}`);

    // server.public_url set: it is the address, with nothing to choose and nothing to warn of.
    answer = { base_url: 'https://books.example.org', public_url_set: true, loopback: false, lan_urls: [first] };
    await page.goto('/account/api-keys');
    created = await createReaderKey(page);
    await expect(created.getByLabel('OPDS catalog URL')).toHaveValue('https://books.example.org/opds/v1.2/catalog');
    await expect(created.getByText(/only works on this computer/)).toHaveCount(0);
    await expect(created.getByRole('radio')).toHaveCount(0);

    // Loopback and no LAN address: said, with what to set.
    answer = { ...loopback, lan_urls: [] };
    await page.goto('/account/api-keys');
    created = await createReaderKey(page);
    await expect(created.getByText(`This address, ${serverUrl()}, only works on this computer`)).toBeVisible();
    await expect(created.getByText(/this server offers no address on your network/)).toBeVisible();
    await expect(created.getByLabel('OPDS catalog URL')).toHaveValue(`${serverUrl()}/opds/v1.2/catalog`);

    // The addresses could not be loaded: the browser's own address, said to be a guess, never a blank panel; Try again.
    answer = null;
    await page.goto('/account/api-keys');
    created = await createReaderKey(page);
    await expect(created.getByRole('alert')).toContainText("This server's addresses could not be loaded");
    await expect(created.getByLabel('OPDS catalog URL')).toHaveValue(`${serverUrl()}/opds/v1.2/catalog`);
    await expect.poll(() => qrState(created.getByRole('img', { name: /QR code with the OPDS address/ }))).toBe('drawn');
    await expectNoSeriousA11yViolations(page);
    answer = { ...loopback, lan_urls: [first] };
    await created.getByRole('button', { name: 'Try again' }).click();
    await expect(created.getByLabel('OPDS catalog URL')).toHaveValue(`${first}/opds/v1.2/catalog`);
    await expect(created.getByRole('alert')).toHaveCount(0);
  });

  test('password: a wrong current password is refused in words, the right one changes it', async ({ page }) => {
    const adminToken = await signIn(page);
    const user = { username: unique('pw'), password: 'first password 1' };
    await createUserByApi(page, adminToken, user);
    const other = await page.context().browser()!.newContext({ baseURL: serverUrl() });
    const readerPage = await other.newPage();
    await signIn(readerPage, { ...ADMIN, username: user.username, password: user.password });
    await readerPage.goto('/account/password');
    await readerPage.getByLabel('Current password').fill('not the password');
    await readerPage.getByLabel('New password', { exact: true }).fill('second password 2');
    await readerPage.getByLabel('Repeat the new password').fill('second password 2');
    await readerPage.getByRole('button', { name: 'Change password' }).click();
    await expect(readerPage.getByRole('alert')).toHaveText('The current password is not correct');
    // Still signed in: a wrong password is not a lost session.
    await expect(readerPage).toHaveURL(/\/account\/password$/);

    await readerPage.getByLabel('Current password').fill(user.password);
    await readerPage.getByRole('button', { name: 'Change password' }).click();
    await expect(readerPage.getByRole('status')).toHaveText('Your password was changed.');
    const login = await readerPage.request.post(`${serverUrl()}/api/v1/auth/login`, {
      data: { username: user.username, password: 'second password 2' },
    });
    expect(login.status()).toBe(200);
    await expectNoSeriousA11yViolations(readerPage);
    await other.close();
  });

  test('reading statistics are charts: pages and time per day, streaks, devices', async ({ page }) => {
    const token = await signIn(page);
    const auth = { Authorization: `Bearer ${token}` };
    const books = (await (await page.request.get(`${serverUrl()}/api/v1/books?pageSize=2`, { headers: auth })).json()) as {
      data: Array<{ id: string }>;
    };
    const book = books.data[0]!;
    for (const current_page of [1, 2, 3]) {
      expect(
        (
          await page.request.put(`${serverUrl()}/api/v1/books/${book.id}/progress`, {
            headers: auth,
            data: { current_page, is_completed: false },
          })
        ).ok(),
      ).toBe(true);
    }
    await page.goto('/account/stats');
    await expect(page.getByRole('heading', { name: 'Reading statistics' })).toBeVisible();
    await expect(page.getByRole('img', { name: /^Pages read per day: highest \d+ pages? on / })).toBeVisible();
    await expect(page.getByRole('img', { name: /^Minutes read per day:/ })).toBeVisible();
    await expect(page.getByText('Current streak')).toBeVisible();
    await expect(page.locator('.stat-tile').filter({ hasText: 'Current streak' })).toContainText('1 day');
    await expect(page.getByRole('list', { name: 'Reading time by device' }).getByRole('listitem')).not.toHaveCount(0);
    await page.getByRole('combobox', { name: 'Period' }).selectOption('7');
    await expect(page.locator('.bar-chart').first().locator('rect.bar')).toHaveCount(7);
    await expectNoSeriousA11yViolations(page);
  });
});
