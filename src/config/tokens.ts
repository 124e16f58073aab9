import { type EnvOf, integer } from './variables';

export interface TokenLifecycleConfig {
  /** Refresh an access token that expires within this many seconds. */
  refreshSkewS: number;
  /** How long a replica may hold the cross-replica refresh lock. */
  refreshLockTtlMs: number;
  /** How long a resolved credential stays cached in-process (0 = always read the database). */
  credentialCacheTtlMs: number;
}

export const tokensVariables = {
  HUB_TOKEN_REFRESH_SKEW_S: integer(300, 0, 3000).describe('Refresh an access token that expires within this many seconds, before the tool runs.'),
  HUB_REFRESH_LOCK_TTL_MS: integer(15_000, 1000, 120_000).describe('Lifetime of the cross-replica token-refresh lock in Redis.'),
  HUB_CREDENTIAL_CACHE_TTL_MS: integer(5_000, 0, 300_000).describe(
    'In-process cache of credential lookups (`0` = off); refresh, connect and disconnect invalidate it on every replica.',
  ),
};

export type TokensEnv = EnvOf<typeof tokensVariables>;

export const tokensSection = {
  variables: tokensVariables,
  load: (e: TokensEnv): { tokens: TokenLifecycleConfig } => ({
    tokens: {
      refreshSkewS: e.HUB_TOKEN_REFRESH_SKEW_S,
      refreshLockTtlMs: e.HUB_REFRESH_LOCK_TTL_MS,
      credentialCacheTtlMs: e.HUB_CREDENTIAL_CACHE_TTL_MS,
    },
  }),
};
