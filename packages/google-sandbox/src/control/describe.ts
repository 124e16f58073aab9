import type { Account, World } from '../world';

/** What the control API shows of an account: who it is and what it has granted to which client — never tokens. */
export function describeAccount(world: World, account: Account) {
  const grants = [...world.oauth.grants.values()]
    .filter((g) => g.email === account.email)
    .map((g) => ({ client_id: g.clientId, scopes: [...g.scopes].sort(), created_at: new Date(g.createdAt).toISOString() }));
  return { email: account.email, name: account.name, time_zone: account.timeZone, grants };
}
