import { ConfidentialClientApplication, CryptoProvider, type INetworkModule, type NetworkResponse } from '@azure/msal-node';
import { MS_SANDBOX_DEFAULT_APP } from '@hub/microsoft-sandbox';
import { OUTLOOK_CALENDAR } from '../../src/providers/microsoft/catalog';
import { captureLogs } from '../helpers/logs';
import { DEMO, type MicrosoftWorld, startMicrosoftWorld } from '../helpers/microsoft';
import { REDIRECT_URI, browse, connect, hubOAuth, pkce, sandboxConfig } from '../helpers/microsoft-oauth';

/**
 * The Hub's hand-written identity flow beside Microsoft's own client, msal-node, on the same sandbox: their
 * authorize URLs ask for the same thing, a code from msal's URL is redeemed by the Hub, and a refresh token the Hub
 * stored is one msal-node can use. msal-node refuses a non-https authority, so it is told https://127.0.0.1:<port>
 * and its documented transport hook (`system.networkClient`) carries each request to the sandbox's http origin
 * with `X-Forwarded-Proto: https`, as the sandbox's own tests do.
 */

let world: MicrosoftWorld;
let httpsBase: string;
beforeAll(async () => {
  world = await startMicrosoftWorld();
  httpsBase = `https://127.0.0.1:${world.running.port}`;
  await world.control('PUT', '/consent', { mode: 'auto', account: DEMO.ana });
});
afterAll(() => world.close());

const toLoopback = (url: string) => url.replace(httpsBase, world.running.url);

const networkClient = (): INetworkModule => {
  const send = async <T>(method: 'GET' | 'POST', url: string, options?: { headers?: Record<string, string>; body?: string }): Promise<NetworkResponse<T>> => {
    const res = await fetch(toLoopback(url), {
      method,
      headers: { ...options?.headers, 'X-Forwarded-Proto': 'https' },
      ...(options?.body ? { body: options.body } : {}),
    });
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    return { status: res.status, headers, body: (await res.json()) as T };
  };
  return { sendGetRequestAsync: (url, options) => send('GET', url, options), sendPostRequestAsync: (url, options) => send('POST', url, options) };
};

const msal = () =>
  new ConfidentialClientApplication({
    auth: {
      clientId: MS_SANDBOX_DEFAULT_APP.clientId,
      clientSecret: MS_SANDBOX_DEFAULT_APP.clientSecret,
      authority: `${httpsBase}/organizations`,
      knownAuthorities: [new URL(httpsBase).host],
    },
    system: { networkClient: networkClient() },
  });

test('when msal-node and the Hub build the authorize URL for the same request, then every parameter the Hub sends, msal-node sends alike', async () => {
  const { challenge } = pkce();
  const request = { state: 'st-42', codeChallenge: challenge, loginHint: DEMO.ana };
  const ours = new URL(hubOAuth(sandboxConfig(world)).oauth.authorizeUrl({ scopes: OUTLOOK_CALENDAR.scopes, freshConsent: true, ...request }));
  const theirs = new URL(
    await msal().getAuthCodeUrl({
      scopes: [...OUTLOOK_CALENDAR.scopes],
      redirectUri: REDIRECT_URI,
      codeChallengeMethod: 'S256',
      prompt: 'consent',
      responseMode: 'query',
      ...request,
    }),
  );
  expect(theirs.pathname).toBe(ours.pathname);
  const scopes = (u: URL) => new Set(u.searchParams.get('scope')!.split(' '));
  // msal-node adds `openid profile offline_access` by itself; the Hub asks `email` too, for the claim's sake.
  expect([...scopes(theirs)].sort()).toEqual([...scopes(ours)].filter((s) => s !== 'email').sort());
  for (const [name, value] of ours.searchParams) if (name !== 'scope') expect([name, theirs.searchParams.get(name)]).toEqual([name, value]);
});

test("when a person signs in through msal-node's authorize URL, then the Hub redeems the code with the same verifier", async () => {
  const { verifier, challenge } = await new CryptoProvider().generatePkceCodes();
  const url = await msal().getAuthCodeUrl({
    scopes: [...OUTLOOK_CALENDAR.scopes],
    redirectUri: REDIRECT_URI,
    state: 'from-msal',
    codeChallenge: challenge,
    codeChallengeMethod: 'S256',
  });
  const back = await browse(toLoopback(url));
  expect(back.get('state')).toBe('from-msal');
  const exchanged = await hubOAuth(sandboxConfig(world)).oauth.exchange(back.get('code')!, verifier);
  expect(exchanged).toMatchObject({ ok: true, tokens: { email: DEMO.ana, refreshToken: expect.any(String) } });
});

test('when the Hub has stored a refresh token and rotated it once, then msal-node redeems it for a Graph token of the same account', async () => {
  const logs = captureLogs('debug');
  const { oauth } = hubOAuth(sandboxConfig(world), logs);
  const grant = await connect(oauth, { scopes: OUTLOOK_CALENDAR.scopes });
  const rotated = await oauth.refresh(grant.refreshToken!, AbortSignal.timeout(10_000));
  if (rotated.kind !== 'refreshed' || !rotated.refreshToken) throw new Error(`no rotated refresh token: ${rotated.kind}`);
  const result = await msal().acquireTokenByRefreshToken({ refreshToken: rotated.refreshToken, scopes: ['Calendars.ReadWrite'] });
  expect(result?.account?.username).toBe(DEMO.ana);
  const me = await fetch(`${world.graphUrl}/me`, { headers: { authorization: `Bearer ${result!.accessToken}` } });
  expect(((await me.json()) as { userPrincipalName: string }).userPrincipalName).toBe(DEMO.ana);
  for (const secret of [grant.refreshToken!, rotated.refreshToken, rotated.accessToken]) expect(logs.text()).not.toContain(secret);
});
