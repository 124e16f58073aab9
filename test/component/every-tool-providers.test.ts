import { randomUUID } from 'node:crypto';
import { asAdmin } from '../helpers/admin';
import { type Connected, connectToSandbox, runTool, sandboxHubEnv } from '../helpers/connected';
import { client, serviceAuth } from '../helpers/http';
import { connectToMicrosoft } from '../helpers/microsoft-connected';
import {
  type CallTool,
  type EveryToolWorld,
  GOOGLE_WORLD,
  connectBoth,
  connectBothMicrosoft,
  expectEveryToolCalled,
  runEveryTool,
} from '../helpers/every-tool';
import { type TestHub, buildTestHub, microsoftGraphEnv } from '../helpers/hub';
import { type MicrosoftWorld, startMicrosoftWorld } from '../helpers/microsoft';
import { useTestSandbox } from '../helpers/sandbox';

/**
 * Every built-in tool over HTTP (POST /api/internal/tools/execute/, answers checked against openapi.yaml) on each
 * provider: the same agent's day against the Google sandbox and against the Microsoft sandbox, each connection
 * stored through the credential store with tokens the sandbox minted, as the connect flow would have.
 */

const sb = useTestSandbox();
let ms: MicrosoftWorld;
let hub: TestHub;

beforeAll(async () => {
  ms = await startMicrosoftWorld();
  hub = await buildTestHub({ env: { ...sandboxHubEnv(sb), ...microsoftGraphEnv(ms.graphUrl) } });
});
afterAll(async () => {
  await hub?.close();
  await ms?.close();
});

const callFor =
  (who: Pick<Connected, 'customerId' | 'userId'>): CallTool =>
  async (tool, inputs, requestId) => {
    const res = await runTool(hub, who, tool, inputs, requestId ? { requestId } : {});
    return res.body.success ? { ok: true, result: res.body.result } : { ok: false, code: res.body.error.code, error: res.body.error };
  };

const PROVIDERS: [string, (customerId: string) => Promise<EveryToolWorld>][] = [
  [
    'Google',
    async (customerId) => {
      await connectBoth(hub, sb, customerId);
      return GOOGLE_WORLD;
    },
  ],
  ['Microsoft', (customerId) => connectBothMicrosoft(hub, ms, customerId)],
];

/** What the receipts show for a few of the calls: each vendor's own operations and statuses. */
const receiptOps: Record<string, string[]> = {
  Google: ['calendar_create_event calendar.events.insert 200', 'email_send gmail.users.messages.send 200'],
  Microsoft: ['calendar_create_event events.create 201', 'email_send messages.create 201', 'email_send messages.send 202'],
};

/** The integrations named by the receipts of calls that reached the vendor. */
const receiptIntegrations: Record<string, string[]> = { Google: ['google_calendar', 'google_gmail'], Microsoft: ['outlook_calendar', 'outlook_mail'] };

describe.each(PROVIDERS)('every tool on %s', (name, connect) => {
  test('when a customer connected only this provider, then every built-in tool answers from it', async () => {
    const customerId = randomUUID();
    const world = await connect(customerId);
    const called = await runEveryTool(callFor({ customerId, userId: null }), world);
    expectEveryToolCalled(called);
    // Each call's receipt lists the vendor operations it made, with the vendor's status: Graph's for Outlook.
    await hub.audit.drain();
    const rows = await hub.testDb.db.query<{ tool: string; integration: string | null; google_ops: { operation: string; status: number | string }[] }>(
      'SELECT tool, integration, google_ops FROM audit_receipts WHERE customer_id = $1',
      [customerId],
    );
    const ops = rows.flatMap((r) => r.google_ops.map((o) => `${r.tool} ${o.operation} ${o.status}`));
    expect(ops).toEqual(expect.arrayContaining(receiptOps[name]!));
    // …and names the integration that answered, whose vendor those operations are (the console labels them by it).
    const answered = new Set(rows.filter((r) => r.google_ops.length > 0).map((r) => r.integration));
    expect([...answered].sort()).toEqual(receiptIntegrations[name]);
  }, 60_000);
});

describe('which provider answers', () => {
  const GOOGLE_ADDRESS = 'ines.vale@acme.example';
  // A second account: the Google sandbox, like Google, ends an earlier grant of the same account and client.
  const GOOGLE_OTHER = 'otto.berg@acme.example';
  const MS_ADDRESS = 'ines.vale@contoso.example';

  /** The primary calendar's id says who answered: Google's is the account's address, Graph's is its own id. */
  const primaryOf = async (who: Pick<Connected, 'customerId' | 'userId'>, inputs: Record<string, unknown> = {}) => {
    const res = await runTool(hub, who, 'calendar_list_calendars', inputs);
    if (res.status !== 200) throw new Error(JSON.stringify(res.body.error));
    return (res.body.result.calendars as { id: string; primary: boolean }[]).find((c) => c.primary)!.id;
  };
  const statusOf = async (customerId: string) =>
    (await client(hub.app).get(`/api/internal/integrations/status/${customerId}/`).set('Authorization', serviceAuth()).expect(200)).body;

  let googleOnly: string;
  let both: string;
  let msPrimary: string;
  beforeAll(async () => {
    const made = await ms.control('POST', '/accounts', { upn: MS_ADDRESS, time_zone: 'UTC' });
    if (made.status !== 201) throw new Error(`sandbox /accounts: ${made.status}`);
  });
  // The Google sandbox starts each test from an empty world (useTestSandbox): each test connects anew.
  beforeEach(async () => {
    await sb.createAccount({ email: GOOGLE_ADDRESS });
    await sb.createAccount({ email: GOOGLE_OTHER });
    googleOnly = (await connectToSandbox(hub, sb, { email: GOOGLE_OTHER, integration: 'google_calendar' })).customerId;
    both = (await connectToSandbox(hub, sb, { email: GOOGLE_ADDRESS, integration: 'google_calendar' })).customerId;
    await connectToMicrosoft(hub, ms, { upn: MS_ADDRESS, integration: 'outlook_calendar', customerId: both });
    msPrimary = await primaryOf({ customerId: both, userId: null }, { provider: 'microsoft' });
  });

  test('when both are connected and no default is recorded, then the first connected answers, and the status says so', async () => {
    expect(await primaryOf({ customerId: both, userId: null })).toBe(GOOGLE_ADDRESS);
    expect((await statusOf(both)).capabilities.calendar.resolves_to).toEqual({
      provider: 'google',
      integration: 'google_calendar',
      reason: 'first_connected',
      source: 'customer',
    });
  });

  test('when an admin marks Microsoft default, then the next call is answered by Outlook at once, and a pin still wins', async () => {
    await client(hub.app).put(`/api/admin/customers/${both}/defaults/calendar`).set('Authorization', asAdmin()).send({ provider: 'microsoft' }).expect(200);
    expect(msPrimary).not.toBe(GOOGLE_ADDRESS);
    expect(await primaryOf({ customerId: both, userId: null })).toBe(msPrimary);
    expect((await statusOf(both)).capabilities.calendar.resolves_to).toMatchObject({ provider: 'microsoft', reason: 'default' });
    expect(await primaryOf({ customerId: both, userId: null }, { provider: 'google' })).toBe(GOOGLE_ADDRESS);
    await client(hub.app).delete(`/api/admin/customers/${both}/defaults/calendar`).set('Authorization', asAdmin()).expect(200);
    expect(await primaryOf({ customerId: both, userId: null })).toBe(GOOGLE_ADDRESS);
  });

  test('when a call pins a provider the customer has not connected, then INTEGRATION_NOT_CONNECTED names only its integration', async () => {
    const res = await runTool(hub, { customerId: googleOnly, userId: null }, 'calendar_get_availability', {
      start_date: '2027-01-18',
      end_date: '2027-01-19',
      timezone: 'UTC',
      provider: 'microsoft',
    }).expect(400);
    expect(res.body.error).toMatchObject({
      code: 'INTEGRATION_NOT_CONNECTED',
      message: 'Outlook Calendar is not connected for this customer (the call asked for microsoft)',
      details: { integration: 'outlook_calendar', integrations: ['outlook_calendar'], provider: 'microsoft', setup_url: expect.any(String) },
    });
    expect(res.body.metadata.api_calls).toBe(0);
  });

  test('when nothing of a capability is connected, then INTEGRATION_NOT_CONNECTED names every integration that would do', async () => {
    const res = await runTool(hub, { customerId: googleOnly, userId: null }, 'email_search', { query: 'x' }).expect(400);
    expect(res.body.error.details).toMatchObject({ integration: 'google_gmail', integrations: ['google_gmail', 'outlook_mail'] });
  });

  test('when an end user connected their own Outlook, then their calls reach it rather than the customer-wide Google', async () => {
    const userId = `user-${randomUUID()}`;
    await connectToMicrosoft(hub, ms, { upn: MS_ADDRESS, integration: 'outlook_calendar', customerId: googleOnly, userId });
    expect(await primaryOf({ customerId: googleOnly, userId })).not.toBe(GOOGLE_OTHER);
    expect(await primaryOf({ customerId: googleOnly, userId: null })).toBe(GOOGLE_OTHER);
    expect((await statusOf(googleOnly)).capabilities.calendar.resolves_to).toMatchObject({ provider: 'google', source: 'customer' });
  });

  test('when an unknown provider is pinned, then VALIDATION_ERROR names inputs.provider', async () => {
    const res = await runTool(hub, { customerId: both, userId: null }, 'calendar_list_calendars', { provider: 'yahoo' }).expect(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.issues[0].path).toBe('inputs.provider');
  });
});
