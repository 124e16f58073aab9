import type { INetworkModule, NetworkRequestOptions, NetworkResponse } from '@azure/msal-node';
import { type AuthenticationProvider, Client, type Context, type Middleware, MiddlewareFactory } from '@microsoft/microsoft-graph-client';
import { type RunningSandbox, type Sandbox, createSandbox } from '../src';
import type { SandboxOptions } from '../src/app';

/**
 * How the tests reach the sandbox with Microsoft's own clients.
 *
 * Both clients insist on https, and the sandbox serves plain http on loopback: msal-node refuses a non-https
 * authority (msal-common UrlString.validateAsUri, "authority_uri_insecure"), and the Graph client attaches the
 * bearer token only to https URLs of Graph or of its `customHosts` (GraphRequestUtil.isValidEndpoint). So each
 * client is given the sandbox as `https://127.0.0.1:<port>` and only its last hop is swapped: msal-node through
 * its documented `system.networkClient` hook, the Graph client by replacing the HTTPMessageHandler at the end
 * of its default middleware chain — authentication, retry (Retry-After), redirect and telemetry stay the
 * client's own. That hop sends the request to http://127.0.0.1:<port> with `X-Forwarded-Proto: https`, which
 * the sandbox honours from loopback, so every URL it answers with (metadata endpoints, nextLinks) is https too.
 */

export const CLIENT_ID = '0b3f7a6e-2c1d-4e8f-9a5b-6c7d8e9f0a1b';
export const CLIENT_SECRET = 'test~secret~value';
export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

export interface Harness {
  sandbox: Sandbox;
  running: RunningSandbox;
  /** https://127.0.0.1:<port>: what the clients are told. */
  httpsBase: string;
  control: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;
  close: () => Promise<void>;
}

export async function startHarness(options: SandboxOptions = {}): Promise<Harness> {
  const sandbox = createSandbox({ seed: 11, control: true, checkResponses: true, ...options });
  const running = await sandbox.listen(0);
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${running.url}/_sandbox${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    return { status: res.status, body: res.status === 204 ? undefined : await res.json() };
  };
  return { sandbox, running, httpsBase: `https://127.0.0.1:${running.port}`, control, close: () => running.close() };
}

/** https://127.0.0.1:<port>/… → http://127.0.0.1:<port>/…, saying the caller used https. */
export const toLoopback = (h: Harness, url: string) => url.replace(h.httpsBase, h.running.url);

/** msal-node's documented transport hook, carrying its requests to the sandbox. */
export function loopbackNetworkClient(h: Harness): INetworkModule {
  const send = async <T>(method: 'GET' | 'POST', url: string, options?: NetworkRequestOptions): Promise<NetworkResponse<T>> => {
    const res = await fetch(toLoopback(h, url), {
      method,
      headers: { ...options?.headers, 'X-Forwarded-Proto': 'https' },
      ...(options?.body !== undefined ? { body: options.body } : {}),
    });
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    return { status: res.status, headers, body: (await res.json()) as T };
  };
  return { sendGetRequestAsync: (url, options) => send('GET', url, options), sendPostRequestAsync: (url, options) => send('POST', url, options) };
}

/** The Graph client's last middleware, replaced: the same fetch, to the sandbox's loopback origin. */
class LoopbackTransport implements Middleware {
  constructor(private readonly h: Harness) {}
  async execute(context: Context): Promise<void> {
    const url = typeof context.request === 'string' ? context.request : context.request.url;
    const headers = new Headers(context.options?.headers as ConstructorParameters<typeof Headers>[0]);
    headers.set('X-Forwarded-Proto', 'https');
    context.response = await fetch(toLoopback(this.h, url), { ...(context.options as RequestInit), headers });
  }
}

/** @microsoft/microsoft-graph-client, pointed at the sandbox: baseUrl and customHosts, its default middleware. */
export function graphClient(h: Harness, token: string | (() => Promise<string>)): Client {
  const authProvider: AuthenticationProvider = { getAccessToken: async () => (typeof token === 'string' ? token : token()) };
  const chain = MiddlewareFactory.getDefaultMiddlewareChain(authProvider);
  chain[chain.length - 1] = new LoopbackTransport(h);
  return Client.initWithMiddleware({ baseUrl: `${h.httpsBase}/`, defaultVersion: 'v1.0', customHosts: new Set(['127.0.0.1']), middleware: chain });
}

/** A work account, a confidential app, and tokens minted through the control API (the dance is tested elsewhere). */
export async function seedPeople(h: Harness) {
  for (const a of [
    { upn: 'ana@contoso.example', display_name: 'Ana Lima', time_zone: 'Romance Standard Time' },
    { upn: 'ben@contoso.example', display_name: 'Ben Okafor', time_zone: 'Pacific Standard Time' },
    { upn: 'chen@contoso.example', display_name: 'Chen Wei', time_zone: 'Europe/London' },
  ])
    expect((await h.control('POST', '/accounts', a)).status).toBe(201);
  expect(
    (
      await h.control('POST', '/apps', {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [REDIRECT_URI],
        name: 'Agent',
        permissions: ['User.Read', 'Calendars.ReadWrite', 'Mail.ReadWrite', 'Mail.Send', 'MailboxSettings.ReadWrite'],
      })
    ).status,
  ).toBe(201);
}

export const ALL_SCOPES = ['User.Read', 'Calendars.ReadWrite', 'Mail.ReadWrite', 'Mail.Send', 'MailboxSettings.ReadWrite'];

export async function tokenFor(h: Harness, upn: string, scopes = ALL_SCOPES): Promise<string> {
  const t = await h.control('POST', '/tokens', { upn, client_id: CLIENT_ID, scopes });
  expect(t.status).toBe(201);
  return t.body.access_token as string;
}

/** Every Graph answer so far matched the CSDL. */
export function expectNoViolations(h: Harness) {
  expect(h.sandbox.world.violations).toEqual([]);
}
