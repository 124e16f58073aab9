import { loadConfig } from '../../src/config';
import { type GoogleClients, createGoogleClients } from '../../src/providers/google/clients';
import { type RunningSandbox, type Sandbox, type SandboxOptions, type World, createSandbox } from '@hub/google-sandbox';
import { testEnv } from './env';

/**
 * The real Google sandbox, in-process on a free port, in sandbox mode (control API on), checking every
 * successful API response against Google's Discovery schemas. Reach it over HTTP like the Hub does:
 * `google` holds googleapis/google-auth-library clients configured exactly as the Hub configures them.
 */

export const TEST_CLIENT = {
  clientId: 'hub-test.apps.googleusercontent.com',
  clientSecret: 'GOCSPX-test-client-secret',
  redirectUri: 'https://hub.test.example/integrations/google/callback',
};

export const SCOPES = {
  calendarReadonly: 'https://www.googleapis.com/auth/calendar.readonly',
  calendarEvents: 'https://www.googleapis.com/auth/calendar.events',
  calendar: 'https://www.googleapis.com/auth/calendar',
  gmailReadonly: 'https://www.googleapis.com/auth/gmail.readonly',
  gmailSend: 'https://www.googleapis.com/auth/gmail.send',
  gmailModify: 'https://www.googleapis.com/auth/gmail.modify',
} as const;

export interface ControlResponse {
  status: number;
  body: any;
}

export interface TestSandbox {
  url: string;
  sandbox: Sandbox;
  readonly world: World;
  /** Calls the control API: `control('POST', '/accounts', {...})`. */
  control(method: string, path: string, body?: unknown): Promise<ControlResponse>;
  /** Creates an account through the control API; fails the test if the sandbox refuses it. */
  createAccount(spec: Record<string, unknown>): Promise<any>;
  /** An access token for `email` holding exactly `scopes` (control API, as if consent had been given). */
  token(email: string, scopes: readonly string[]): Promise<string>;
  /** Hub-configured Google clients pointed at this sandbox. */
  google: GoogleClients;
  /** Every API response so far matched its Discovery schema (call in afterAll / at the end of a test). */
  expectFaithful(): void;
  close(): Promise<void>;
}

export async function startTestSandbox(options: SandboxOptions = {}): Promise<TestSandbox> {
  const sandbox = createSandbox({
    seed: 42,
    control: true,
    checkResponses: true,
    clients: [{ clientId: TEST_CLIENT.clientId, clientSecret: TEST_CLIENT.clientSecret, redirectUris: [TEST_CLIENT.redirectUri], name: 'Hub (test)' }],
    onError: (err) => {
      throw err;
    },
    ...options,
  });
  const running: RunningSandbox = await sandbox.listen(0);
  const control = async (method: string, path: string, body?: unknown): Promise<ControlResponse> => {
    const res = await fetch(`${running.url}/_sandbox${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const config = loadConfig(
    testEnv({ HUB_GOOGLE_SANDBOX_URL: running.url, HUB_GOOGLE_CLIENT_ID: TEST_CLIENT.clientId, HUB_GOOGLE_CLIENT_SECRET: TEST_CLIENT.clientSecret }),
  );
  return {
    url: running.url,
    sandbox,
    get world() {
      return sandbox.world;
    },
    control,
    async createAccount(spec) {
      const res = await control('POST', '/accounts', spec);
      if (res.status !== 201) throw new Error(`sandbox refused account: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    async token(email, scopes) {
      const res = await control('POST', '/tokens', { email, scopes });
      if (res.status !== 201) throw new Error(`sandbox refused token: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.access_token as string;
    },
    google: createGoogleClients(config.google),
    expectFaithful() {
      expect(sandbox.world.violations).toEqual([]);
    },
    close: () => running.close(),
  };
}

/**
 * A suite's sandbox: started before its tests, checked for faithfulness and closed after them, and reset before
 * each test (so each starts from an empty world). Returns a stand-in that forwards to the running sandbox.
 */
export function useTestSandbox(options: SandboxOptions = {}): TestSandbox {
  let running: TestSandbox | undefined;
  beforeAll(async () => {
    running = await startTestSandbox(options);
  });
  afterAll(async () => {
    running?.expectFaithful();
    await running?.close();
  });
  beforeEach(async () => {
    await running!.control('POST', '/reset');
  });
  return new Proxy({} as TestSandbox, {
    get(_target, key) {
      if (!running) throw new Error('the sandbox starts in beforeAll; use it inside hooks and tests');
      const value: unknown = Reflect.get(running, key);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(running) : value;
    },
  });
}
