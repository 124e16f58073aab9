import { CLIENT_ID, CLIENT_SECRET, type Harness, REDIRECT_URI, seedPeople, startHarness } from './support';

/**
 * The v2.0 admin-consent endpoint (v2-admin-consent): an administrator approves permissions for the whole tenant,
 * after which users of a tenant without user consent sign in without being asked; a non-administrator gets no consent.
 */

let h: Harness;
let tenantId: string;
beforeAll(async () => {
  h = await startHarness();
  await seedPeople(h);
  expect((await h.control('POST', '/accounts', { upn: 'it@contoso.example', display_name: 'IT Admin', admin: true })).status).toBe(201);
  tenantId = (await h.control('GET', '/tenants')).body.tenants[0].id;
  await h.control('PUT', `/tenants/${tenantId}/consent`, { user_consent: 'admin' });
});
afterAll(() => h.close());

async function visit(path: string, params: Record<string, string>) {
  const res = await fetch(`${h.running.url}${path}?${new URLSearchParams(params)}`, { redirect: 'manual' });
  return {
    status: res.status,
    back: res.status === 302 ? new URL(res.headers.get('location')!).searchParams : undefined,
    text: res.status === 302 ? '' : await res.text(),
  };
}

const signIn = (upn: string, scope = 'Mail.Read offline_access openid') =>
  visit(`/${tenantId}/oauth2/v2.0/authorize`, { client_id: CLIENT_ID, response_type: 'code', redirect_uri: REDIRECT_URI, scope, state: 'u1' });
const adminConsent = (tenant: string, params: Record<string, string> = {}) =>
  visit(`/${tenant}/v2.0/adminconsent`, {
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    scope: 'https://graph.microsoft.com/Mail.Read https://graph.microsoft.com/Calendars.Read openid offline_access',
    state: 'a1',
    ...params,
  });

test('when a user of a tenant without user consent signs in before and after an administrator consents, then AADSTS90094 turns into a code', async () => {
  await h.control('PUT', '/consent', { mode: 'auto', account: 'ben@contoso.example' });
  expect((await signIn('ben@contoso.example')).back?.get('error_description')).toMatch(/^AADSTS90094/);

  await h.control('PUT', '/consent', { mode: 'auto', account: 'it@contoso.example' });
  const approved = await adminConsent('organizations');
  expect(Object.fromEntries(approved.back!)).toEqual({
    admin_consent: 'True',
    tenant: tenantId,
    scope: 'https://graph.microsoft.com/Mail.Read https://graph.microsoft.com/Calendars.Read openid offline_access',
    state: 'a1',
  });
  expect((await h.control('GET', '/tenants')).body.tenants[0].admin_consent[CLIENT_ID]).toEqual(expect.arrayContaining(['Mail.Read', 'Calendars.Read']));

  await h.control('PUT', '/consent', { mode: 'auto', account: 'ben@contoso.example' });
  const code = (await signIn('ben@contoso.example')).back?.get('code');
  expect(code).toBeTruthy();
  const token = await fetch(`${h.running.url}/${tenantId}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: REDIRECT_URI,
    }),
  });
  expect(((await token.json()) as { scope: string }).scope.split(' ')).toEqual(expect.arrayContaining(['Mail.Read']));
});

test('when someone who is not an administrator, or an administrator who declines, answers the admin-consent page, then no consent is recorded and the error comes back with admin_consent=True', async () => {
  await h.control('PUT', `/tenants/${tenantId}/consent`, { admin_consent: { client_id: CLIENT_ID, scopes: [] } });
  await h.control('PUT', '/consent', { mode: 'auto', account: 'ana@contoso.example' });
  const notAdmin = await adminConsent(tenantId);
  expect(notAdmin.back?.get('admin_consent')).toBe('True');
  expect(notAdmin.back?.get('error')).toBe('access_denied');
  expect(notAdmin.back?.get('error_description')).toMatch(/^AADSTS90094/);
  expect(notAdmin.back?.get('state')).toBe('a1');

  await h.control('PUT', '/consent', { mode: 'auto', account: 'it@contoso.example', deny: true });
  const declined = await adminConsent(tenantId);
  expect(declined.back?.get('error')).toBe('consent_required');
  expect(declined.back?.get('error_description')).toMatch(/^AADSTS65004/);
  expect((await h.control('GET', '/tenants')).body.tenants[0].admin_consent[CLIENT_ID]).toEqual([]);
});

test('when the admin-consent request names common, an unregistered redirect URI or an unknown scope, then it is refused', async () => {
  await h.control('PUT', '/consent', { mode: 'auto', account: 'it@contoso.example' });
  expect((await adminConsent('common')).back?.get('error')).toBe('invalid_request');
  const wrongRedirect = await adminConsent(tenantId, { redirect_uri: 'https://evil.example/cb' });
  expect(wrongRedirect.status).toBe(400);
  expect(wrongRedirect.text).toContain('AADSTS50011');
  expect((await adminConsent(tenantId, { scope: 'Mail.Fly' })).back?.get('error_description')).toMatch(/^AADSTS650053/);
});
