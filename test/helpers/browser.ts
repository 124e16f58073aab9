import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, type Page, chromium } from 'playwright-core';

/**
 * Debian's Chromium driven by playwright-core (no browser download). With CI=true a missing Chromium fails the
 * run — `.ci/run` installs it — and never skips; elsewhere the browser suite is skipped with a note.
 */
export const CHROMIUM = '/usr/bin/chromium';
export const SCREENSHOTS = join(__dirname, '..', '..', 'test-results', 'console');

export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI === 'true')
    throw new Error(`CI=true: ${CHROMIUM} is missing (apt-get install -y chromium; .ci/run does it); the browser suite never skips in CI`);
  process.stderr.write(`Skipped: the admin console browser suite (no ${CHROMIUM}; apt-get install -y chromium)\n`);
  return false;
}

export function launchChromium(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** axe-core's serious and critical violations on the page as it is now (rule id and the first offending nodes). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join(' | ')}`,
    );
}

/** Waits until the console page has shown its data; returns ms from navigation start to then (performance mark). */
export async function pageReady(page: Page): Promise<number> {
  await page.waitForSelector('html[data-ready="true"]', { state: 'attached', timeout: 30_000 });
  return page.evaluate(() => performance.getEntriesByName('hub-console-ready')[0]!.startTime);
}

export const screenshot = (page: Page, name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
