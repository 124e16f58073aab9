import { MS_SANDBOX_DEFAULT_APP } from '@hub/microsoft-sandbox';
import type { RefreshOutcome } from '../../src/core/provider';
import { OUTLOOK_CALENDAR, OUTLOOK_MAIL } from '../../src/providers/microsoft/catalog';
import { captureLogs } from '../helpers/logs';
import { DEMO, type MicrosoftWorld, startMicrosoftWorld } from '../helpers/microsoft';
import { connect, hubOAuth, sandboxConfig } from '../helpers/microsoft-oauth';

/**
 * Keeping a Microsoft connection alive against the sandbox: each refresh hands back a new refresh token (Microsoft
 * rotates them), and each way Microsoft ends a grant comes back as the cause the Hub records.
 */

let world: MicrosoftWorld;
const logs = captureLogs('debug');
const secrets: string[] = [MS_SANDBOX_DEFAULT_APP.clientSecret];
beforeAll(async () => {
  world = await startMicrosoftWorld();
});
afterAll(async () => {
  await world.close();
  for (const secret of secrets) expect(logs.text()).not.toContain(secret);
});

const port = () => hubOAuth(sandboxConfig(world), logs).oauth;
const signal = () => AbortSignal.timeout(10_000);

async function grantFor(upn: string, scopes: readonly string[] = OUTLOOK_CALENDAR.scopes) {
  await world.control('PUT', '/consent', { mode: 'auto', account: upn });
  const grant = await connect(port(), { scopes });
  secrets.push(grant.accessToken, grant.refreshToken!);
  return grant.refreshToken!;
}

function refreshed(outcome: RefreshOutcome) {
  if (outcome.kind !== 'refreshed') throw new Error(`expected refreshed, got ${JSON.stringify(outcome)}`);
  secrets.push(outcome.accessToken, ...(outcome.refreshToken ? [outcome.refreshToken] : []));
  return outcome;
}

test('when a refresh token is used, then a new access token and a new refresh token come back; the old one still works, as documented', async () => {
  const first = await grantFor(DEMO.ana);
  const a = refreshed(await port().refresh(first, signal()));
  expect(a.refreshToken).toEqual(expect.stringMatching(/^1\.A/));
  expect(a.refreshToken).not.toBe(first);
  expect(a.scopes).toEqual(expect.arrayContaining(['Calendars.ReadWrite', 'MailboxSettings.Read', 'User.Read']));
  expect(a.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 59 * 60_000);
  // "The Microsoft identity platform doesn't revoke old refresh tokens when used" (refresh-tokens).
  refreshed(await port().refresh(first, signal()));
  const b = refreshed(await port().refresh(a.refreshToken!, signal()));
  expect(b.refreshToken).not.toBe(a.refreshToken);
  const me = await fetch(`${world.graphUrl}/me`, { headers: { authorization: `Bearer ${b.accessToken}` } });
  expect(me.status).toBe(200);
});

test('when the password changes or the sessions are revoked, then the refresh is refused as password_changed (AADSTS50173)', async () => {
  const rt = await grantFor(DEMO.ana);
  await world.control('POST', `/accounts/${DEMO.ana}/password-change`);
  expect(await port().refresh(rt, signal())).toEqual({
    kind: 'invalid_grant',
    cause: 'password_changed',
    description: 'AADSTS50173 invalid_grant (bad_token)',
  });
  await world.control('POST', '/clock/advance', { seconds: 1 });
  const again = await grantFor(DEMO.ana);
  await world.control('POST', `/accounts/${DEMO.ana}/revoke-sessions`);
  expect(await port().refresh(again, signal())).toMatchObject({ kind: 'invalid_grant', cause: 'password_changed' });
  await world.control('POST', '/clock/advance', { seconds: 1 });
});

test('when the account is disabled, then the refresh is refused as user_disabled (AADSTS50057)', async () => {
  const rt = await grantFor(DEMO.ben, OUTLOOK_MAIL.scopes);
  await world.control('PUT', `/accounts/${DEMO.ben}/disabled`, { disabled: true });
  try {
    expect(await port().refresh(rt, signal())).toEqual({
      kind: 'invalid_grant',
      cause: 'user_disabled',
      description: 'AADSTS50057 invalid_grant (user_account_disabled)',
    });
  } finally {
    await world.control('PUT', `/accounts/${DEMO.ben}/disabled`, { disabled: false });
  }
});

test('when the person withdraws consent, then the refresh is refused as consent_required (AADSTS65001)', async () => {
  const rt = await grantFor(DEMO.chen);
  await world.control('POST', `/accounts/${DEMO.chen}/withdraw-consent`, { client_id: MS_SANDBOX_DEFAULT_APP.clientId });
  expect(await port().refresh(rt, signal())).toEqual({
    kind: 'invalid_grant',
    cause: 'consent_required',
    description: 'AADSTS65001 invalid_grant (consent_required)',
  });
});

test("when the Hub's secret is wrong, then the refresh fails as the Hub's misconfiguration, not the grant's", async () => {
  const rt = await grantFor(DEMO.ana);
  const wrong = hubOAuth(sandboxConfig(world, { HUB_MICROSOFT_CLIENT_SECRET: 'wrong~secret' }), logs).oauth;
  const outcome = await wrong.refresh(rt, signal());
  expect(outcome).toEqual({
    kind: 'failed',
    misconfigured: true,
    error: expect.objectContaining({
      code: 'EXTERNAL_API_ERROR',
      retryable: false,
      details: expect.objectContaining({ microsoft_error: 'AADSTS7000215 invalid_client' }),
    }),
  });
  // The grant itself still works.
  refreshed(await port().refresh(rt, signal()));
});

test('when a refresh token goes unused for 90 days, then the refresh is refused as inactive (AADSTS700082); one used meanwhile lives on', async () => {
  const idle = await grantFor(DEMO.ana);
  const used = await grantFor(DEMO.ben, OUTLOOK_MAIL.scopes);
  await world.control('POST', '/clock/advance', { seconds: 60 * 86_400 });
  const kept = refreshed(await port().refresh(used, signal()));
  await world.control('POST', '/clock/advance', { seconds: 30 * 86_400 + 60 });
  expect(await port().refresh(idle, signal())).toEqual({ kind: 'invalid_grant', cause: 'inactive', description: 'AADSTS700082 invalid_grant (bad_token)' });
  refreshed(await port().refresh(kept.refreshToken!, signal()));
});
