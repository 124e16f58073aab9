import { type KeyObject, generateKeyPairSync, randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';

/**
 * An identity platform whose answers a test writes: what the Microsoft sandbox, faithful to Microsoft, never
 * sends — an id_token for another audience or issuer or signed with an unknown key, a `/me` of another user, a
 * 503 with Retry-After, an answer of the wrong types or of megabytes, no answer at all. It serves the OpenID
 * configuration and key set the way Microsoft does (issuer with `{tenantid}`), the token endpoint and Graph's `/me`.
 */

export const TENANT_ID = '3c1f2a4b-5d6e-4f70-8a9b-0c1d2e3f4a5b';
export const USER_ID = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
export const CLIENT_ID = '0b3f7a6e-2c1d-4e8f-9a5b-6c7d8e9f0a1b';

type Answer = { status: number; body: string | Buffer; headers?: Record<string, string> } | 'hang' | 'destroy';

export interface ScriptedIdentity {
  url: string;
  kid: string;
  /** What the token endpoint answers next (once each, then `defaultTokenAnswer`). */
  tokenAnswers: Answer[];
  meAnswers: Answer[];
  /** The form bodies the token endpoint received. */
  tokenRequests: URLSearchParams[];
  keysFetched: number;
  signIdToken(claims?: Record<string, unknown>, options?: { kid?: string; key?: KeyObject; audience?: string }): string;
  tokenJson(extra?: Record<string, unknown>): Answer;
  close(): Promise<void>;
}

export async function startScriptedIdentity(): Promise<ScriptedIdentity> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomUUID();
  const pending: Promise<void>[] = [];
  const hung: ServerResponse[] = [];
  let base = '';
  const self: ScriptedIdentity = {
    url: '',
    kid,
    tokenAnswers: [],
    meAnswers: [],
    tokenRequests: [],
    keysFetched: 0,
    signIdToken: (claims = {}, options = {}) =>
      jwt.sign(
        {
          aud: options.audience ?? CLIENT_ID,
          iss: `${base}/${TENANT_ID}/v2.0`,
          tid: TENANT_ID,
          oid: USER_ID,
          preferred_username: 'ana@contoso.example',
          ver: '2.0',
          iat: Math.floor(Date.now() / 1000),
          exp: Math.floor(Date.now() / 1000) + 3600,
          ...claims,
        },
        options.key ?? privateKey,
        { algorithm: 'RS256', keyid: options.kid ?? kid },
      ),
    tokenJson: (extra = {}) => ({
      status: 200,
      body: JSON.stringify({
        token_type: 'Bearer',
        scope: 'Calendars.ReadWrite MailboxSettings.Read User.Read openid profile email',
        expires_in: 3600,
        access_token: `at-${randomUUID()}`,
        refresh_token: `1.A${randomUUID()}`,
        id_token: self.signIdToken(),
        ...extra,
      }),
    }),
    close: async () => {
      for (const res of hung) res.destroy();
      await Promise.all(pending);
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
  const send = (res: ServerResponse, answer: Answer) => {
    if (answer === 'hang') return void hung.push(res);
    if (answer === 'destroy') return void res.socket?.destroy();
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(answer.body);
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', base).pathname;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (path === '/organizations/v2.0/.well-known/openid-configuration') {
      return send(res, {
        status: 200,
        body: JSON.stringify({
          issuer: `${base}/{tenantid}/v2.0`,
          jwks_uri: `${base}/organizations/discovery/v2.0/keys`,
          token_endpoint: `${base}/organizations/oauth2/v2.0/token`,
        }),
      });
    }
    if (path === '/organizations/discovery/v2.0/keys') {
      self.keysFetched++;
      return send(res, { status: 200, body: JSON.stringify({ keys: [{ kty: 'RSA', use: 'sig', kid, ...publicKey.export({ format: 'jwk' }) }] }) });
    }
    if (path === '/organizations/oauth2/v2.0/token' && req.method === 'POST') {
      self.tokenRequests.push(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      return send(res, self.tokenAnswers.shift() ?? self.tokenJson());
    }
    if (path === '/v1.0/me') {
      return send(
        res,
        self.meAnswers.shift() ?? { status: 200, body: JSON.stringify({ id: USER_ID, mail: 'Ana@Contoso.example', userPrincipalName: 'ana@contoso.example' }) },
      );
    }
    send(res, { status: 404, body: '{}' });
  };
  const server: Server = createServer((req, res) => {
    const p = handle(req, res).catch(() => void res.destroy());
    pending.push(p);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  self.url = base;
  return self;
}
