import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { type PastedLine, type RunningDemo, pasteIntoBash, scratchProject, shellEnv, startDemo } from '../helpers/demo';
import { freePort } from '../helpers/ports';
import { DEMO_MICROSOFT_CUSTOMER_ID } from '../../src/demo-lines';

/**
 * The bar of the first five minutes: every line `npm run demo` prints works when pasted into a shell — with the
 * secrets it generated and with secrets the person supplied, before and after a restart, for the Google demo
 * customer and the Microsoft one alike — and its browser links reach each sandbox's consent page. Runs the built demo (dist/; `npm test` builds it first).
 */

jest.setTimeout(240_000);

const json = (p: PastedLine): any => {
  try {
    return JSON.parse(p.out);
  } catch {
    throw new Error(`not JSON from: ${p.line}\n${p.out.slice(0, 500)}`);
  }
};

const toolOf = (line: string) => /"tool":"([a-z_]+)"/.exec(line)?.[1];

/** Pastes the banner and checks what each line answered. Returns the answers by tool. */
function pasteAndCheck(demo: RunningDemo, project: string, env: Record<string, string>) {
  const commands = demo.lines.filter((l) => !l.startsWith('#'));
  expect(commands[0]).toMatch(/^export HUB_SECRET=/);
  for (const c of commands.filter((l) => l.includes('ServiceSecret $HUB_SECRET'))) expect(c).toContain('"Authorization: ServiceSecret $HUB_SECRET"');
  const pasted = pasteIntoBash(commands, project, env);
  const byTool: Record<string, any> = {};
  for (const p of pasted) {
    expect({ line: p.line, status: p.status }).toEqual({ line: p.line, status: 0 });
    if (p.line.startsWith('export') || p.line.endsWith('/openapi.yaml')) continue;
    const body = json(p);
    const tool = toolOf(p.line);
    if (p.line.includes('ServiceSecret wrong')) expect(body.error.code).toBe('UNAUTHORIZED');
    else if (tool === 'calendar_teleport') expect(body.error.code).toBe('TOOL_NOT_FOUND');
    else if (tool === 'hub_echo' && p.line.includes('"message":42')) expect(body.error.code).toBe('VALIDATION_ERROR');
    else if (tool) {
      expect({ tool, body }).toMatchObject({ tool, body: { success: true } });
      // The second demo customer's calls (Microsoft) are kept apart from the first's (Google).
      byTool[p.line.includes(DEMO_MICROSOFT_CUSTOMER_ID) ? `microsoft:${tool}` : tool] = body;
    } else if (p.line.includes('/api/admin/')) expect(Array.isArray(body.integrations)).toBe(true);
    else if (p.line.includes(`/integrations/status/${DEMO_MICROSOFT_CUSTOMER_ID}/`)) {
      expect(body.integrations.outlook_calendar).toMatchObject({ connected: true, email: 'ana@northwind.example' });
      expect(body.integrations.outlook_mail).toMatchObject({ connected: true, email: 'ana@northwind.example' });
    } else if (p.line.includes('/integrations/status/')) expect(body.integrations).toBeDefined();
  }
  expect(pasted.find((p) => p.line.endsWith('/openapi.yaml'))!.out).toContain('openapi: 3.1');
  return byTool;
}

/** The printed browser links lead to each sandbox's consent page, on the host the link names. */
async function followConnectLinks(demo: RunningDemo) {
  const printed = (path: string) => demo.lines.find((l) => l.startsWith('# ') && l.includes(path))?.replace(/^#\s*/, '');
  const google = printed('/integrations/google/connect?token=');
  expect(google).toBeDefined();
  const start = await fetch(google!, { redirect: 'manual' });
  expect(start.status).toBe(302);
  const consent = await fetch(start.headers.get('location')!, { redirect: 'manual' });
  expect(consent.status).toBe(200);
  expect(await consent.text()).toContain('ana.garcia@acme.example');

  // The Microsoft customer's link: the Hub → the Microsoft sandbox's authorize endpoint, which asks a person to
  // sign in and consent (the demo answers it automatically only while it connects its own customer).
  const outlook = printed('/integrations/microsoft/connect?token=');
  expect(outlook).toBeDefined();
  const hop = await fetch(outlook!, { redirect: 'manual' });
  expect(hop.status).toBe(302);
  const authorize = new URL(hop.headers.get('location')!);
  expect(authorize.pathname).toMatch(/\/oauth2\/v2\.0\/authorize$/);
  expect(authorize.hostname).toBe(new URL(outlook!).hostname); // the host DEMO_HOST names, as the link's
  const signIn = await fetch(authorize, { redirect: 'manual' });
  expect(signIn.status).toBe(200);
  const page = await signIn.text();
  expect(page).toContain('Permissions requested');
  expect(page).toContain('ana@northwind.example');
}

async function runTwice(project: string, demoEnv: Record<string, string>, pasteEnv: Record<string, string>) {
  const answers: Record<string, any>[] = [];
  for (const run of ['first start', 'restart']) {
    const demo = await startDemo(project, demoEnv);
    try {
      const byTool = pasteAndCheck(demo, project, pasteEnv);
      // a restarted demo's writes are new writes: never a replay of the last run's records
      expect({ run, replay: byTool.calendar_create_event.metadata.idempotent_replay ?? false }).toEqual({ run, replay: false });
      expect(byTool.calendar_update_event.result.event_id).toBe(byTool.calendar_create_event.result.event_id);
      expect(byTool.email_read.result.attachments[0].filename).toBe('q4-planning.pdf');
      // The Microsoft customer's printed lines answer from Outlook: Ana's week of meetings, Ben's mail in her inbox.
      expect(byTool['microsoft:calendar_get_availability'].result.busy_periods.length).toBeGreaterThan(0);
      expect(byTool['microsoft:email_search'].result.messages.length).toBeGreaterThan(0);
      await followConnectLinks(demo);
      answers.push(byTool);
    } finally {
      await demo.stop();
    }
  }
  return answers;
}

describe('npm run demo, pasted as printed', () => {
  let project: string;
  beforeAll(() => {
    project = scratchProject();
  });
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('when the demo generates its secrets (data in a non-default HUB_DATA_DIR), then every line works, before and after a restart', async () => {
    const ports = { HUB_PORT: String(await freePort()), SANDBOX_PORT: String(await freePort()) };
    const dataDir = join(project, 'elsewhere');
    const demoEnv = shellEnv({ ...ports, HUB_DATA_DIR: dataDir });
    // The person pastes into another terminal: HUB_DATA_DIR is not repeated there, admin-token still finds the secret.
    const [first, second] = await runTwice(project, demoEnv, shellEnv());
    expect(second!.calendar_create_event.result.event_id).not.toBe(first!.calendar_create_event.result.event_id);
  });

  it('when the sandbox port is taken, then the demo stops and names SANDBOX_PORT', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    try {
      const env = shellEnv({ HUB_PORT: String(await freePort()), SANDBOX_PORT: String(port), HUB_DATA_DIR: 'memory://' });
      await expect(startDemo(project, env)).rejects.toThrow(`port ${port} on 127.0.0.1 is already in use: set SANDBOX_PORT to a free port`);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('when the person supplies HUB_SERVICE_SECRETS, then the lines work in their shell, before and after a restart', async () => {
    const ports = { HUB_PORT: String(await freePort()), SANDBOX_PORT: String(await freePort()) };
    const secrets = `${randomBytes(24).toString('hex')},${randomBytes(24).toString('hex')}`;
    const demoEnv = shellEnv({ ...ports, HUB_SERVICE_SECRETS: secrets, HUB_DATA_DIR: join(project, 'supplied') });
    await runTwice(project, demoEnv, shellEnv({ HUB_SERVICE_SECRETS: secrets }));
  });
});
