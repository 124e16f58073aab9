import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { calendar_v3 } from '@googleapis/calendar';
import { gmail_v1 } from '@googleapis/gmail';
import { OAuth2Client } from 'google-auth-library';
import { type RunningSandbox, createSandbox } from '../src';

/**
 * The sandbox as another team's agent uses it, in the README's words: googleapis and google-auth-library pointed
 * at it (`rootUrl`, the OAuth endpoints), a person and a client set up through the control API, consent given
 * on the consent page's behalf, then Calendar and Gmail called as they would call Google.
 */

const CLIENT = { clientId: 'agent-tests.apps.googleusercontent.com', clientSecret: 'GOCSPX-agent-tests', redirectUri: 'http://127.0.0.1:9/callback' };
let sandbox: RunningSandbox;
const control = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${sandbox.url}/_sandbox${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
};

beforeAll(async () => {
  sandbox = await createSandbox({ seed: 7, control: true }).listen(0);
});
afterAll(() => sandbox.close());

test('when an agent connects an account and calls Calendar and Gmail through googleapis, then the sandbox answers as Google would', async () => {
  expect(
    (await control('POST', '/clients', { client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret, redirect_uris: [CLIENT.redirectUri] })).status,
  ).toBe(201);
  const ana = {
    email: 'ana@team.example',
    time_zone: 'Europe/Madrid',
    messages: [{ from: 'ben@team.example', to: ['ana@team.example'], subject: 'Q3 plan', text: 'Draft attached.' }],
  };
  expect((await control('POST', '/accounts', ana)).status).toBe(201);
  expect((await control('PUT', '/consent', { mode: 'auto', account: ana.email })).status).toBe(200);

  const oauth = new OAuth2Client({
    clientId: CLIENT.clientId,
    clientSecret: CLIENT.clientSecret,
    redirectUri: CLIENT.redirectUri,
    endpoints: {
      oauth2AuthBaseUrl: `${sandbox.url}/o/oauth2/v2/auth`,
      oauth2TokenUrl: `${sandbox.url}/token`,
      oauth2RevokeUrl: `${sandbox.url}/revoke`,
      tokenInfoUrl: `${sandbox.url}/tokeninfo`,
      oauth2FederatedSignonPemCertsUrl: `${sandbox.url}/oauth2/v1/certs`,
      oauth2FederatedSignonJwkCertsUrl: `${sandbox.url}/oauth2/v3/certs`,
    },
  });
  const consentUrl = oauth.generateAuthUrl({
    access_type: 'offline',
    scope: ['https://www.googleapis.com/auth/calendar.events', 'https://www.googleapis.com/auth/gmail.readonly'],
  });
  const redirect = await fetch(consentUrl, { redirect: 'manual' }); // auto consent: straight back to the client
  const code = new URL(redirect.headers.get('location')!).searchParams.get('code')!;
  const { tokens } = await oauth.getToken(code);
  expect(tokens.refresh_token).toBeTruthy();
  oauth.setCredentials(tokens);

  const calendar = new calendar_v3.Calendar({ auth: oauth, rootUrl: `${sandbox.url}/` });
  const created = await calendar.events.insert({
    calendarId: 'primary',
    requestBody: { summary: 'Planning', start: { dateTime: '2030-01-07T10:00:00+01:00' }, end: { dateTime: '2030-01-07T11:00:00+01:00' } },
  });
  const listed = await calendar.events.list({ calendarId: 'primary', timeMin: '2030-01-07T00:00:00Z', timeMax: '2030-01-08T00:00:00Z' });
  expect(listed.data.items?.map((e) => e.id)).toEqual([created.data.id]);

  const gmail = new gmail_v1.Gmail({ auth: oauth, rootUrl: `${sandbox.url}/` });
  const found = await gmail.users.messages.list({ userId: 'me', q: 'subject:Q3' });
  const message = await gmail.users.messages.get({ userId: 'me', id: found.data.messages![0]!.id!, format: 'metadata', metadataHeaders: ['Subject'] });
  expect(message.data.payload?.headers).toEqual([{ name: 'Subject', value: 'Q3 plan' }]);

  // The control API shows what the agent did, and can make Google unkind: here the next insert fails once.
  expect((await control('GET', '/requests')).body.requests.map((r: { operation: string }) => r.operation)).toEqual(
    expect.arrayContaining(['oauth.token', 'calendar.events.insert', 'gmail.users.messages.list']),
  );
  expect((await control('POST', '/faults', { operation: 'calendar.events.insert', preset: 'backendError', times: 1 })).status).toBe(201);
  await expect(calendar.events.insert({ calendarId: 'primary', requestBody: created.data }, { retry: false })).rejects.toMatchObject({ status: 500 });
});

test('when a request asks for gzip as Google requires (Accept-Encoding and a User-Agent saying gzip), then the answer is gzip; otherwise it is plain', async () => {
  await control('POST', '/accounts', { email: 'gz@team.example', time_zone: 'UTC' });
  const { body: grant } = await control('POST', '/tokens', {
    email: 'gz@team.example',
    scopes: ['https://www.googleapis.com/auth/calendar.readonly'],
    client_id: 'hub-sandbox.apps.googleusercontent.com',
  });
  const get = (headers: Record<string, string>) =>
    new Promise<{ encoding: string | undefined; vary: string | undefined; body: Buffer }>((resolve, reject) => {
      const url = new URL(`${sandbox.url}/calendar/v3/users/me/settings/timezone`);
      const req = request(url, { headers: { authorization: `Bearer ${grant.access_token}`, ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], vary: res.headers.vary as string | undefined, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
  const asked = await get({ 'accept-encoding': 'gzip', 'user-agent': 'google-api-nodejs-client/9.3.1 (gzip)' });
  expect(asked.encoding).toBe('gzip');
  expect(asked.vary).toBe('Origin, X-Origin, Referer');
  expect(JSON.parse(gunzipSync(asked.body).toString())).toMatchObject({ kind: 'calendar#setting', id: 'timezone', value: 'UTC' });
  const notAsked: Record<string, string>[] = [{ 'accept-encoding': 'gzip', 'user-agent': 'curl/8' }, { 'user-agent': 'agent (gzip)' }];
  for (const headers of notAsked) {
    const plain = await get(headers);
    expect(plain.encoding).toBeUndefined();
    expect(JSON.parse(plain.body.toString())).toMatchObject({ id: 'timezone' });
  }
});
