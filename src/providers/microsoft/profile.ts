import { z } from 'zod';
import { GraphError, graphFetch } from './graph-request';

/**
 * The connected account as Graph names it, read once at connect with the new access token: `GET /me` with
 * `$select=id,mail,userPrincipalName` (User.Read; learn.microsoft.com/graph/api/user-get). The address the Hub keeps
 * is the mailbox's (`mail`), else the sign-in name (`userPrincipalName`) — the id_token's `email` and
 * `preferred_username` are not verified by Microsoft (id-token-claims-reference: "mutable, … can't be used for
 * authorization decisions"), while `/me` is the directory's own record of the token's user.
 */

export interface SignedInUser {
  id: string;
  email: string;
}

export type ProfileVerdict = { ok: true; user: SignedInUser } | { ok: false; failure: 'unverifiable' | 'unavailable'; reason: string };

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const address = z
  .string()
  .min(3)
  .max(320)
  .regex(/^[^\s@]+@[^\s@]+$/);
const meSchema = z.object({
  id: z.string().regex(GUID),
  mail: address.nullish(),
  userPrincipalName: address,
});

export async function readSignedInUser(graphUrl: string, accessToken: string, timeoutMs: number, signal?: AbortSignal): Promise<ProfileVerdict> {
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const answer = await graphFetch(
      graphUrl,
      accessToken,
      { method: 'GET', path: '/me', query: { $select: 'id,mail,userPrincipalName' } },
      signal ? AbortSignal.any([signal, timeout]) : timeout,
    );
    const me = meSchema.safeParse(answer.body);
    if (!me.success) return { ok: false, failure: 'unverifiable', reason: 'GET /me answered without id and address' };
    return { ok: true, user: { id: me.data.id.toLowerCase(), email: (me.data.mail ?? me.data.userPrincipalName).toLowerCase() } };
  } catch (err) {
    if (err instanceof GraphError) {
      const transient = err.status >= 500 || err.status === 429;
      // 401/403: the token just issued does not read its own user (User.Read not granted): who connected is unknown.
      return { ok: false, failure: transient ? 'unavailable' : 'unverifiable', reason: `GET /me answered ${err.status}${err.code ? ` ${err.code}` : ''}` };
    }
    // fetch's own failures, by name (they come from Node's realm: see token-endpoint.ts).
    const e = err as { name?: unknown; message?: unknown } | null;
    if (e?.name === 'AbortError' || e?.name === 'TimeoutError' || (e?.name === 'TypeError' && e.message === 'fetch failed')) {
      return { ok: false, failure: 'unavailable', reason: `GET /me: ${String(e.name)}` };
    }
    throw err;
  }
}
