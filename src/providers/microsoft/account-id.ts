import type { IdTokenClaims } from './id-token';

/**
 * A Microsoft account's stable id: its tenant and its object id, from the verified id_token. Microsoft: `oid` "is
 * the immutable identifier for the requestor … the same across applications" and, for a person in several tenants,
 * differs per tenant, so the pair `tid` + `oid` names one account (id-token-claims-reference: "use tid and oid
 * together as a key"). The address (`preferred_username`, `mail`) is mutable — a rename or a new domain changes it —
 * so a reconnect is recognised by this id, not by the address.
 */

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const microsoftAccountId = (claims: Pick<IdTokenClaims, 'tid' | 'oid'>): string => `${claims.tid}/${claims.oid}`;

/** The tenant of an account id this module made, or null for anything else (a Google connection's, a corrupt one). */
export function tenantOfAccountId(accountId: string | null | undefined): string | null {
  const [tid, oid, ...rest] = (accountId ?? '').split('/');
  return rest.length === 0 && tid !== undefined && oid !== undefined && GUID.test(tid) && GUID.test(oid) ? tid : null;
}
