import { MS_DEMO_TENANT, MS_SANDBOX_DEFAULT_APP } from '@hub/microsoft-sandbox';
import { tenantOfAccountId } from '../../../src/providers/microsoft/account-id';
import { OUTLOOK_CALENDAR, OUTLOOK_MAIL } from '../../../src/providers/microsoft/catalog';
import { captureLogs } from '../../helpers/logs';
import { DEMO, type MicrosoftWorld, startMicrosoftWorld } from '../../helpers/microsoft';
import { browse, connect, hubOAuth, sandboxConfig, signIn } from '../../helpers/microsoft-oauth';

/**
 * The connecting side's outcomes against the Microsoft sandbox's identity endpoints: the stable account id a grant
 * carries (a reconnect of the same person is recognised after a rename), and what each redirect without a code
 * tells the Hub to do next — restart the connect after an administrator approved the Hub, or send an administrator
 * to their organisation's admin-consent page (the connection's setup_url).
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
const oauth = () => hubOAuth(sandboxConfig(world), logs).oauth;
const as = (account: string, extra: Record<string, unknown> = {}) => world.control('PUT', '/consent', { mode: 'auto', account, ...extra });

async function grantFor(account: string) {
  await as(account);
  const grant = await connect(oauth(), { scopes: OUTLOOK_MAIL.scopes });
  secrets.push(grant.accessToken, grant.refreshToken!);
  return grant;
}

test('when the same person reconnects after an administrator renamed the account, then the address is new and the account id is the same', async () => {
  const before = await grantFor(DEMO.ben);
  expect(before.accountId).toMatch(new RegExp(`^${MS_DEMO_TENANT.id}/[0-9a-f-]{36}$`));
  expect(tenantOfAccountId(before.accountId)).toBe(MS_DEMO_TENANT.id);
  const renamed = await world.control('PUT', `/accounts/${DEMO.ben}/address`, { upn: 'benjamin@northwind.example' });
  expect(renamed.status).toBe(200);
  const after = await grantFor('benjamin@northwind.example');
  expect(after.email).toBe('benjamin@northwind.example');
  expect(after.accountId).toBe(before.accountId);
  // Another person of the same tenant is another account.
  expect((await grantFor(DEMO.ana)).accountId).not.toBe(before.accountId);
  await world.control('PUT', '/accounts/benjamin@northwind.example/address', { upn: DEMO.ben });
});

test('when tenantOfAccountId reads something it did not make, then it answers null', () => {
  expect(tenantOfAccountId(null)).toBeNull();
  expect(tenantOfAccountId('ana@northwind.example')).toBeNull();
  expect(tenantOfAccountId(`${MS_DEMO_TENANT.id}/not-a-guid`)).toBeNull();
  expect(tenantOfAccountId(`${MS_DEMO_TENANT.id}/${MS_DEMO_TENANT.id}/x`)).toBeNull();
});

describe("an organisation that requires its administrator's approval", () => {
  beforeAll(async () => {
    await world.control('PUT', `/tenants/${MS_DEMO_TENANT.id}/consent`, { user_consent: 'admin' });
    await world.control('POST', '/accounts', { upn: 'admin@northwind.example', display_name: 'Northwind Admin', admin: true });
  });
  afterAll(() => world.control('PUT', `/tenants/${MS_DEMO_TENANT.id}/consent`, { user_consent: 'users' }));

  it("when a person of it connects and the Hub knows the tenant, then the next step is the tenant's own admin-consent page; after approval, a restart connects", async () => {
    await as(DEMO.chen);
    const refused = await signIn(oauth(), { scopes: OUTLOOK_CALENDAR.scopes });
    expect(refused.code).toBeNull();
    const said = oauth().callbackError(Object.fromEntries(refused.query), { state: 'st-9', tenant: MS_DEMO_TENANT.id });
    expect(said).toMatchObject({ kind: 'admin_consent_required', next: 'admin_consent', logged: 'AADSTS90094 access_denied' });
    const setupUrl = new URL(said!.adminConsentUrl!);
    expect(setupUrl.pathname).toBe(`/${MS_DEMO_TENANT.id}/v2.0/adminconsent`);
    expect(setupUrl.searchParams.get('state')).toBe('st-9');

    // A person without an administrator role who follows it is refused the same way: still an administrator's step.
    await as(DEMO.chen);
    const notAdmin = Object.fromEntries(await browse(setupUrl.toString()));
    expect(notAdmin).toMatchObject({ admin_consent: 'True', state: 'st-9' });
    expect(oauth().callbackError(notAdmin, { tenant: MS_DEMO_TENANT.id })).toMatchObject({ kind: 'admin_consent_required', next: 'admin_consent' });

    // The administrator declines: nothing is approved; whoever tries again may.
    await as('admin@northwind.example', { deny: true });
    const declined = Object.fromEntries(await browse(setupUrl.toString()));
    expect(oauth().callbackError(declined)).toEqual({ kind: 'denied', next: 'start_over', logged: 'AADSTS65004 consent_required' });

    await as('admin@northwind.example');
    const approved = Object.fromEntries(await browse(setupUrl.toString()));
    expect(oauth().callbackError(approved)).toEqual({
      kind: 'admin_consented',
      next: 'restart_connect',
      tenantId: MS_DEMO_TENANT.id,
      logged: 'admin_consent=True',
    });
    const grant = await grantFor(DEMO.chen);
    expect(grant.scopes).toEqual(expect.arrayContaining(['Calendars.ReadWrite']));
  });

  it('when the Hub does not know the tenant, or is handed one that is no tenant, then the page is the configured authority’s', async () => {
    const query = { error: 'access_denied', error_description: 'AADSTS90094: The grant requires admin permission.' };
    for (const tenant of [undefined, 'common', 'consumers', '../evil', 'a b']) {
      const url = new URL(oauth().callbackError(query, tenant === undefined ? {} : { tenant })!.adminConsentUrl!);
      expect(url.pathname).toBe('/organizations/v2.0/adminconsent');
    }
    expect(new URL(oauth().callbackError(query, { tenant: 'northwind.example' })!.adminConsentUrl!).pathname).toBe('/northwind.example/v2.0/adminconsent');
  });
});

test('when the account is disabled, then the sign-in comes back blocked and an administrator is the next step', async () => {
  await world.control('PUT', `/accounts/${DEMO.ana}/disabled`, { disabled: true });
  try {
    await as(DEMO.ana);
    const { query, code } = await signIn(oauth());
    expect(code).toBeNull();
    expect(oauth().callbackError(Object.fromEntries(query))).toEqual({
      kind: 'blocked',
      next: 'ask_administrator',
      logged: expect.stringContaining('AADSTS50057'),
    });
  } finally {
    await world.control('PUT', `/accounts/${DEMO.ana}/disabled`, { disabled: false });
  }
});

test.each([
  [{ error: 'temporarily_unavailable', error_description: 'AADSTS90033: A transient error.' }, 'unavailable', 'retry_later'],
  [{ error: 'unsupported_response_type', error_description: 'AADSTS900144: x' }, 'misconfigured', 'fix_configuration'],
  [{ error: 'access_denied', error_description: 'AADSTS53003: Access has been blocked by Conditional Access policies.' }, 'blocked', 'ask_administrator'],
  [{ error: 'login_required', error_description: 'AADSTS50058: x' }, 'failed', 'start_over'],
  [{ state: 'only-a-state' }, 'failed', 'start_over'],
  [{ admin_consent: 'True', tenant: 'not-a-guid' }, 'admin_consented', 'restart_connect'],
])('when the callback says %j, then it is %s and the next step %s', (query, kind, next) => {
  const said = oauth().callbackError(query);
  expect(said).toMatchObject({ kind, next });
  expect(said).not.toHaveProperty('tenantId');
});

test('when the callback carries a code, then there is nothing to interpret', () => {
  expect(oauth().callbackError({ code: 'abc', state: 's' })).toBeNull();
});
