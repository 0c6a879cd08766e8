import { existsSync } from 'node:fs';
import { defineConfig, devices } from '@playwright/test';

/**
 * End-to-end tests of the web app in Debian's Chromium (Playwright's own browser download is not reachable
 * here), against the real server (`node dist/cli.js serve`) on a temp SQLite data_dir with generated libraries:
 * see web/e2e/global-setup.ts. One worker: the machines have two cores and the tests share one server.
 */
const chromium =
  process.env.COLOPHON_E2E_CHROMIUM ??
  ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((p) => existsSync(p)) ??
  '/usr/bin/chromium';

const launchOptions = {
  executablePath: chromium,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

export default defineConfig({
  testDir: 'web/e2e',
  outputDir: 'test-results/artifacts',
  globalSetup: './web/e2e/global-setup.ts',
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list'], ['json', { outputFile: 'test-results/playwright.json' }]] : [['list']],
  use: {
    // The service worker (issue 54) answers some API requests itself, out of page.route's reach: the tests that
    // stub the API keep it off; web/e2e/offline.spec.ts turns it on.
    serviceWorkers: 'block',
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions,
  },
  projects: [
    // The first run happens once, on the fresh server; every other test builds on the admin and library it made.
    { name: 'first-run', testMatch: /first-run\.spec\.ts/, use: { ...devices['Desktop Chrome'], launchOptions } },
    {
      name: 'desktop',
      testIgnore: /(first-run|live|admin|account|scale|reader|identify|restore|keyboard|offline|inbox)\.spec\.ts/,
      dependencies: ['first-run'],
      use: { ...devices['Desktop Chrome'], launchOptions },
    },
    // The main flows on a phone-sized touch screen.
    {
      name: 'phone',
      testMatch: /(browse|search|auth)\.spec\.ts/,
      dependencies: ['first-run'],
      use: { ...devices['Pixel 7'], launchOptions },
    },
    // Last: these add libraries and series, which the counts above do not expect.
    {
      name: 'live',
      testMatch: /(live|admin|account|scale|identify|restore|keyboard|inbox)\.spec\.ts/,
      dependencies: ['desktop', 'phone'],
      use: { ...devices['Desktop Chrome'], launchOptions },
    },
    // Account and administration flows on a phone-sized screen (tests tagged @phone), after the counts above.
    {
      name: 'pixel-7',
      grep: /@phone/,
      testMatch: /(account|admin)\.spec\.ts/,
      dependencies: ['desktop', 'phone'],
      use: { ...devices['Pixel 7'], launchOptions },
    },
    // The reader adds its own library (books whose pages show their numbers): after every count above.
    // Tests tagged @phone run on the phone only (reader-phone): what they check does not depend on the screen, and
    // running them twice cost CI a minute; the desktop's own ways (keys, wheel, double pages) have their own tests.
    {
      name: 'reader',
      grepInvert: /@phone/,
      testMatch: /(reader|offline)\.spec\.ts/,
      dependencies: ['live', 'pixel-7'],
      use: { ...devices['Desktop Chrome'], launchOptions },
    },
    {
      name: 'reader-phone',
      grep: /@phone/,
      testMatch: /(reader|offline)\.spec\.ts/,
      dependencies: ['live', 'pixel-7'],
      use: { ...devices['Pixel 7'], launchOptions },
    },
  ],
});
