import { MS_DEMO_ACCOUNTS, MS_SANDBOX_DEFAULT_APP, type RunningSandbox, type Sandbox, createSandbox, populateDemoWorld } from '@hub/microsoft-sandbox';
import type { VendorCall } from '../../src/core/vendor-call';
import { fail, ok } from '../../src/core/errors';
import { classifyGraphError } from '../../src/providers/microsoft/graph-errors';

/**
 * The Microsoft sandbox in the test process, the demo tenant in it, and what a port adapter needs to reach it:
 * the Graph base URL and a `VendorCall` that runs one request with a fresh token and classifies its failure
 * exactly as the provider does — without the resilience layer's retries, so a test sees each answer as Graph
 * gave it. Component tests over HTTP use the Hub's own session instead.
 */

export const GRAPH_SCOPES_ALL = ['User.Read', 'Calendars.ReadWrite', 'Mail.ReadWrite', 'Mail.Send', 'MailboxSettings.Read'];

export interface MicrosoftWorld {
  sandbox: Sandbox;
  running: RunningSandbox;
  /** http://127.0.0.1:<port>/v1.0 */
  graphUrl: string;
  control: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;
  /** An access token for `upn` with `scopes` (the demo app's consent recorded). */
  token: (upn: string, scopes?: readonly string[]) => Promise<string>;
  /** A VendorCall for `upn`: one attempt per call, the token fetched once and reused. */
  callFor: (upn: string, scopes?: readonly string[], onAttempt?: () => void) => VendorCall;
  close: () => Promise<void>;
}

export const DEMO = MS_DEMO_ACCOUNTS;

export async function startMicrosoftWorld(options: { seed?: number; now?: Date } = {}): Promise<MicrosoftWorld> {
  const sandbox = createSandbox({
    seed: options.seed ?? 7,
    control: true,
    checkResponses: true,
    apps: [
      {
        clientId: MS_SANDBOX_DEFAULT_APP.clientId,
        secret: MS_SANDBOX_DEFAULT_APP.clientSecret,
        redirectUris: ['http://127.0.0.1:9/integrations/microsoft/callback'],
        name: 'Hub (tests)',
        permissions: GRAPH_SCOPES_ALL,
      },
    ],
    populate: populateDemoWorld(options.now ?? new Date()),
  });
  const running = await sandbox.listen(0, '127.0.0.1');
  const control: MicrosoftWorld['control'] = async (method, path, body) => {
    const res = await fetch(`${running.url}/_sandbox${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    return { status: res.status, body: res.status === 204 ? undefined : await res.json() };
  };
  const token = async (upn: string, scopes: readonly string[] = GRAPH_SCOPES_ALL) => {
    const got = await control('POST', '/tokens', { upn, client_id: MS_SANDBOX_DEFAULT_APP.clientId, scopes, offline: false });
    if (got.status !== 201) throw new Error(`sandbox /tokens: ${got.status} ${JSON.stringify(got.body)}`);
    return got.body.access_token as string;
  };
  const callFor = (upn: string, scopes?: readonly string[], onAttempt?: () => void): VendorCall => {
    let pending: Promise<string> | undefined;
    return async (op, fn) => {
      pending ??= token(upn, scopes);
      const accessToken = await pending;
      onAttempt?.();
      try {
        return ok(await fn(AbortSignal.timeout(10_000), accessToken));
      } catch (err) {
        const failure = classifyGraphError(err, { operation: op.operation });
        if (!failure) throw err;
        return fail(failure.error);
      }
    };
  };
  return { sandbox, running, graphUrl: `${running.url}/v1.0`, control, token, callFor, close: () => running.close() };
}
