import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

export const EPUBCHECK = '/usr/bin/epubcheck';

/**
 * Where epubcheck is missing, a test that needs it is reported skipped, the reason in its name — except on CI, which
 * installs it: there a missing checker fails the test.
 */
export const noEpubcheck = !existsSync(EPUBCHECK) && process.env.CI !== 'true';

export const epubcheckTitle = (title: string): string =>
  noEpubcheck ? `${title} (skipped: ${EPUBCHECK} is missing — apt-get install epubcheck)` : title;

/** Runs epubcheck on a file; resolves with its report, which says "No errors or warnings detected" when valid. */
export async function epubcheck(file: string): Promise<string> {
  if (!existsSync(EPUBCHECK)) throw new Error(`${EPUBCHECK} is missing: install Debian's epubcheck package`);
  // An executable jar (Debian runs it through binfmt when jarwrapper is set up): started with java, which it needs anyway.
  const { stdout, stderr } = await promisify(execFile)(
    'java',
    // A short-lived JVM: the client compiler only and the serial collector halve epubcheck's CPU time.
    ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-jar', EPUBCHECK, file],
    { timeout: 150_000 },
  ).catch((err: { stdout: string; stderr: string }) => {
    throw new Error(`epubcheck failed:\n${err.stdout}\n${err.stderr}`);
  });
  return `${stdout}${stderr}`;
}
