/**
 * The installed Chromium the browser tests drive through playwright-core (which downloads no
 * browser): found at CHROMIUM_PATH, else where Debian and Ubuntu put it. Where it is absent the
 * tests report themselves skipped with {@link noChromiumReason} (the closing skip summary names
 * them), except where it is required — CI=true or GHOSTWIRE_REQUIRE_BROWSER=1 (`.ci/run` installs
 * Debian's chromium and sets both) — where its absence fails the run instead of passing it silently.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM_PATH_ENV = 'CHROMIUM_PATH';
export const REQUIRE_BROWSER_ENV = 'GHOSTWIRE_REQUIRE_BROWSER';

/** Where the Debian (`chromium`) and Ubuntu (`chromium-browser`) packages install it. */
export const CHROMIUM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** The browser to drive, or null. CHROMIUM_PATH, when set, is the only place looked at. */
export function findChromium(): string | null {
  const chosen = process.env[CHROMIUM_PATH_ENV];
  if (chosen !== undefined && chosen !== '') return existsSync(chosen) ? chosen : null;
  return CHROMIUM_PATHS.find((path) => existsSync(path)) ?? null;
}

/** The reason every real-browser test gives when it is skipped (the closing summary groups by it). */
export function noChromiumReason(): string {
  const chosen = process.env[CHROMIUM_PATH_ENV];
  const where =
    chosen !== undefined && chosen !== ''
      ? `${CHROMIUM_PATH_ENV}=${chosen} does not exist`
      : `no ${CHROMIUM_PATHS.join(' nor ')}, and ${CHROMIUM_PATH_ENV} is unset`;
  return `Chromium absent: ${where} (.ci/run installs Debian's chromium); CI=true or ${REQUIRE_BROWSER_ENV}=1 makes this a failure`;
}

/** True where a missing browser must fail the run: CI, or the project's own switch. */
export function browserRequired(): boolean {
  return process.env.CI === 'true' || process.env[REQUIRE_BROWSER_ENV] === '1';
}

/**
 * Skip option for real-browser tests: the reason where Chromium is absent and not required;
 * false where it is present, or required (then {@link launchChromium} fails the test).
 */
export function chromiumSkip(): string | false {
  if (findChromium() !== null || browserRequired()) return false;
  return noChromiumReason();
}

/** Headless Chromium; throws naming where it looked when there is none. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (executablePath === null) {
    throw new Error(`Chromium is required here (CI=true or ${REQUIRE_BROWSER_ENV}=1): ${noChromiumReason()}`);
  }
  // --no-sandbox: CI containers run as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath, args: ['--no-sandbox'] });
}
