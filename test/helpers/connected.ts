import { randomUUID } from 'node:crypto';
import type { IntegrationId } from '../../src/core/integrations';
import type { CredentialRecord } from '../../src/store/credential-store';
import { CALENDAR_SCOPES, GMAIL_SCOPES, aCredential } from './factories';
import { client, serviceAuth } from './http';
import type { TestHub } from './hub';
import { TEST_CLIENT, type TestSandbox } from './sandbox';

/**
 * A customer (or one of its end users) connected to a sandbox account with a real offline grant for the Hub's
 * test OAuth client — what the connect flow would have stored — so tool calls go through the very token,
 * refresh and scope checks they meet in production.
 */
export interface Connected {
  customerId: string;
  userId: string | null;
  email: string;
  record: CredentialRecord;
}

export async function connectToSandbox(
  hub: TestHub,
  sb: TestSandbox,
  options: { email: string; integration: IntegrationId; scopes?: readonly string[]; customerId?: string; userId?: string | null; expiresInS?: number },
): Promise<Connected> {
  const scopes = options.scopes ?? (options.integration === 'google_calendar' ? CALENDAR_SCOPES : GMAIL_SCOPES);
  const grant = await sb.control('POST', '/tokens', { email: options.email, scopes, client_id: TEST_CLIENT.clientId, offline: true });
  return saveSandboxGrant(hub, grant, { ...options, scopes, expiresInS: options.expiresInS ?? 3600 });
}

/**
 * Stores the offline grant a sandbox's control API minted (`POST /tokens`, Google's or Microsoft's) as the connect
 * flow would have: a connected row for the customer (or its end user), holding both tokens.
 */
export async function saveSandboxGrant(
  hub: TestHub,
  grant: { status: number; body: Record<string, unknown> },
  options: { email: string; integration: IntegrationId; scopes: readonly string[]; customerId?: string; userId?: string | null; expiresInS: number },
): Promise<Connected> {
  if (grant.status !== 201) throw new Error(`sandbox refused the grant: ${grant.status} ${JSON.stringify(grant.body)}`);
  const customerId = options.customerId ?? randomUUID();
  const userId = options.userId ?? null;
  const record = await hub.store.save(
    aCredential({
      customerId,
      userId,
      integration: options.integration,
      accountEmail: options.email,
      scopes: [...options.scopes],
      accessToken: grant.body.access_token as string,
      refreshToken: grant.body.refresh_token as string,
      tokenExpiresAt: new Date(Date.now() + options.expiresInS * 1000),
    }),
  );
  return { customerId, userId, email: options.email, record };
}

/**
 * Hub settings for a suite whose Hub talks to `sb`: short backoffs so failure paths are quick, and timeouts with
 * room for a busy machine — the sandbox shares the test's process and cores, and a 1 s attempt timeout failed
 * connects and refreshes under load. A suite about timeouts sets its own, shorter, with a fault that outlasts it.
 */
export const sandboxHubEnv = (sb: TestSandbox, extra: Record<string, string> = {}): Record<string, string> => ({
  HUB_GOOGLE_SANDBOX_URL: sb.url,
  HUB_GOOGLE_CLIENT_ID: TEST_CLIENT.clientId,
  HUB_GOOGLE_CLIENT_SECRET: TEST_CLIENT.clientSecret,
  HUB_GOOGLE_TIMEOUT_MS: '5000',
  HUB_GOOGLE_RETRY_BASE_MS: '10',
  HUB_GOOGLE_RETRY_MAX_MS: '50',
  HUB_TOOL_DEADLINE_MS: '15000',
  ...extra,
});

/** POST /api/internal/tools/execute/ for a connected caller; the answer is validated against openapi.yaml. */
export function runTool(
  hub: TestHub,
  who: Pick<Connected, 'customerId' | 'userId'>,
  tool: string,
  inputs: Record<string, unknown>,
  options: { requestId?: string; agentId?: string } = {},
) {
  return client(hub.app)
    .post('/api/internal/tools/execute/')
    .set('Authorization', serviceAuth())
    .send({
      tool,
      agent_id: options.agentId ?? randomUUID(),
      customer_id: who.customerId,
      user_id: who.userId,
      inputs,
      ...(options.requestId ? { context: { request_id: options.requestId } } : {}),
    });
}

/** How many requests the sandbox has logged; `since()` then lists the ones after it (method, path, operation, status). */
export async function sandboxRequestsFrom(sb: TestSandbox) {
  const since = (await sb.control('GET', '/requests')).body.next as number;
  return async () =>
    (await sb.control('GET', `/requests?since=${since}`)).body.requests as { method: string; path: string; operation?: string; status: number }[];
}
