import { type AuthenticationProvider, Client, type Context, type Middleware, MiddlewareFactory } from '@microsoft/microsoft-graph-client';

/**
 * bench:realcall's reference for Outlook: @microsoft/microsoft-graph-client as it comes — its default middleware
 * chain (authentication, retry with Retry-After, redirect, telemetry) and Node's fetch — given a token the
 * Microsoft sandbox minted. (The Hub's Graph adapters send over Node's http, src/providers/lean-http.ts, as its
 * Google adapters do: the reference on both sides is the vendor's client as it comes.)
 *
 * One hop is swapped, as the sandbox's own tests do (packages/microsoft-sandbox/test/support.ts): the client
 * attaches the bearer token only to https URLs of Graph or of its `customHosts` (GraphRequestUtil.isValidEndpoint),
 * and the sandbox serves plain http on loopback. So the client is told `https://127.0.0.1:<port>` and its last
 * middleware (HTTPMessageHandler: `fetch(request, options)`) is replaced by the same fetch to the http origin, with
 * `X-Forwarded-Proto: https` (honoured from loopback, so nextLinks come back https too). That costs a string replace
 * and a Headers copy per request: nothing a latency in milliseconds can see.
 */

class LoopbackTransport implements Middleware {
  constructor(
    private readonly httpsOrigin: string,
    private readonly httpOrigin: string,
  ) {}

  async execute(context: Context): Promise<void> {
    const url = typeof context.request === 'string' ? context.request : context.request.url;
    const headers = new Headers(context.options?.headers as ConstructorParameters<typeof Headers>[0]);
    headers.set('X-Forwarded-Proto', 'https');
    context.response = await fetch(url.replace(this.httpsOrigin, this.httpOrigin), { ...(context.options as RequestInit), headers });
  }
}

/** A Graph client for `origin` (http://127.0.0.1:<port>, the sandbox or a forwarder in front of it) acting with `token`. */
export function graphClientFor(origin: string, token: string): Client {
  const port = new URL(origin).port;
  const httpsOrigin = `https://127.0.0.1:${port}`;
  const authProvider: AuthenticationProvider = { getAccessToken: async () => token };
  const chain = MiddlewareFactory.getDefaultMiddlewareChain(authProvider);
  chain[chain.length - 1] = new LoopbackTransport(httpsOrigin, origin.replace(/\/+$/, ''));
  return Client.initWithMiddleware({ baseUrl: `${httpsOrigin}/`, defaultVersion: 'v1.0', customHosts: new Set(['127.0.0.1']), middleware: chain });
}
