import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { chromiumAvailable, launchChromium, screenshot } from '../helpers/browser';
import { type TestHub, buildTestHub } from '../helpers/hub';

/**
 * The API reference at /docs in a real Chromium: it renders openapi.yaml's operations and tools under its own CSP
 * (no violation reported, no script error) and asks nothing of any origin but the Hub's.
 */

const run = chromiumAvailable() ? describe : describe.skip;

run('API reference in Chromium', () => {
  let hub: TestHub;
  let server: Server;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    hub = await buildTestHub();
    server = hub.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await hub?.close();
  });

  test('when a person opens /docs, then the reference renders the execute operation and the tools, within its CSP and from the Hub alone', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const origins = new Set<string>();
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.protocol === 'http:' || url.protocol === 'https:') origins.add(url.origin);
    });
    await page.exposeFunction('reportViolation', (v: string) => problems.push(`CSP: ${v}`));
    await page.addInitScript({
      content: "document.addEventListener('securitypolicyviolation', (e) => window.reportViolation(e.violatedDirective + ' ' + e.blockedURI));",
    });

    const response = await page.goto(`${base}/docs`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    await page.getByText('Hub tool-proxy (0.1.0)').waitFor({ timeout: 30_000 });
    expect(await page.title()).toBe('Hub API reference');
    await page.getByText('Tools', { exact: true }).first().click(); // one section at a time: the execute operation is under Tools
    await page.getByText('Run one tool for a customer').first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'api-docs');

    // Redoc's search (FlexSearch) probes `Function(…)` inside a try to decide whether to run in a worker; the CSP
    // refuses it and the search runs on the page instead. Nothing else may be refused or fail.
    expect(problems.filter((p) => p !== 'CSP: script-src eval')).toEqual([]);
    expect([...origins]).toEqual([base]);
    await page.close();
  }, 60_000);
});
