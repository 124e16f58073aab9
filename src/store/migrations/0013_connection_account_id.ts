/**
 * account_id: the vendor's stable id of the connected account, from a verified source (Microsoft: `{tid}/{oid}` of
 * the verified id_token), so that a reconnect is recognised by who signed in rather than by an address that can
 * change (a renamed account, a new domain). Null where the vendor gives none the Hub verifies (Google's rows), or
 * for rows connected before it was kept: those compare by address, as before.
 */
export default `
ALTER TABLE integration_credentials ADD COLUMN account_id text NULL;
`;
