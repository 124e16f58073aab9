import { type KeyObject, generateKeyPairSync } from 'node:crypto';

/** A registered OAuth client (what Google Cloud Console holds for the Hub). */
export interface OAuthClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  name: string;
}

/** What one account has granted one client. Revoking any of its tokens revokes all of it, as at Google. */
export interface Grant {
  id: string;
  clientId: string;
  email: string;
  scopes: Set<string>;
  createdAt: number;
  /** Whether a refresh token was ever issued: Google returns one again only with prompt=consent. */
  offlineIssued: boolean;
}

export interface AccessTokenRecord {
  token: string;
  grantId: string;
  clientId: string;
  email: string;
  scopes: string[];
  expiresAt: number;
  /** Whether this token came from an offline (refreshable) grant — reported by tokeninfo as access_type. */
  offline: boolean;
}

export interface RefreshTokenRecord {
  token: string;
  grantId: string;
  scopes: string[];
  /** When it was issued (sandbox clock): the order the 100-token limit retires them in, the Testing-mode start. */
  issuedAt: number;
  /** Last successful refresh (or issue): six months without one and Google expires it. */
  lastUsedAt: number;
  /** Time-based access: when the person's grant ends (`refresh_token_expires_in`). */
  expiresAt?: number;
  /** Issued while the client was in "Testing" publishing status, for more than sign-in scopes: dies after 7 days. */
  testing: boolean;
}

/**
 * How one account's organisation or owner limits what it grants (control API: PUT /_sandbox/accounts/{email}/oauth).
 * See oauth/lifetimes.ts for the behaviour and its sources.
 */
export interface AccountOAuthPolicy {
  /** The person grants time-based access for this long (instead of ongoing access). */
  timeLimitedAccessS?: number;
  /** Workspace session control: a refresh token older than this answers invalid_grant / invalid_rapt. */
  reauthAfterS?: number;
  /** The Workspace admin restricts the app: consent shows Error 400 admin_policy_enforced, refreshes are refused. */
  adminBlocked?: boolean;
}

/** Lifetime rules Google applies to every refresh token of a client (control API: PUT /_sandbox/oauth). */
export interface OAuthLifetimeSettings {
  /** "testing": refresh tokens for more than sign-in scopes expire 7 days after they are issued. */
  publishingStatus: 'production' | 'testing';
  /** Live refresh tokens per account and client; one more retires the oldest silently (Google: 100). */
  refreshTokenLimit: number;
}

export interface AuthCodeRecord {
  code: string;
  clientId: string;
  redirectUri: string;
  email: string;
  scopes: string[];
  codeChallenge: string | undefined;
  codeChallengeMethod: 'S256' | 'plain' | undefined;
  issueRefreshToken: boolean;
  nonce: string | undefined;
  expiresAt: number;
  used: boolean;
  /** Tokens minted from this code: a replayed code revokes them, as Google does. */
  grantId: string;
}

/** A validated authorization request, held while a person looks at the consent page. */
export interface PendingAuthorization {
  id: string;
  client: OAuthClient;
  redirectUri: string;
  state: string | undefined;
  scopes: string[];
  codeChallenge: string | undefined;
  codeChallengeMethod: 'S256' | 'plain' | undefined;
  offline: boolean;
  forceConsent: boolean;
  includeGrantedScopes: boolean;
  loginHint: string | undefined;
  nonce: string | undefined;
  expiresAt: number;
}

/**
 * How the consent screen answers. `page`: a person clicks Allow/Deny. `auto`: answered at once for tests —
 * as `account` (or the login_hint, or the only account), granting every requested scope or only `grant`.
 */
export interface ConsentPolicy {
  mode: 'page' | 'auto';
  account?: string;
  grant?: string[];
  deny?: boolean;
}

export interface OAuthState {
  clients: Map<string, OAuthClient>;
  grants: Map<string, Grant>;
  accessTokens: Map<string, AccessTokenRecord>;
  refreshTokens: Map<string, RefreshTokenRecord>;
  codes: Map<string, AuthCodeRecord>;
  /** Authorization requests waiting on the consent page, by opaque id (10-minute life). */
  pending: Map<string, PendingAuthorization>;
  consent: ConsentPolicy;
  accessTokenLifetimeS: number;
  /** When true, each refresh returns a new refresh token and retires the old one (some Google clients see this). */
  rotateRefreshTokens: boolean;
  lifetimes: OAuthLifetimeSettings;
  /** Per account (email, lower case): how its organisation or owner limits grants. */
  accountPolicies: Map<string, AccountOAuthPolicy>;
  /** Signs id_tokens; the public half is served at /oauth2/v3/certs. */
  signing: { kid: string; privateKey: KeyObject; publicKey: KeyObject };
}

export type SigningKey = OAuthState['signing'];

/**
 * RSA key generation takes 80-170 ms: done once per sandbox (not per reset), and only when the first id_token is
 * signed or the certs are read, so a sandbox that never issues one starts without paying for it.
 */
export function createSigningKey(): SigningKey {
  let pair: { privateKey: KeyObject; publicKey: KeyObject } | undefined;
  const keys = () => (pair ??= generateKeyPairSync('rsa', { modulusLength: 2048 }));
  return {
    kid: 'sandbox-1',
    get privateKey() {
      return keys().privateKey;
    },
    get publicKey() {
      return keys().publicKey;
    },
  };
}

export function createOAuthState(accessTokenLifetimeS: number, signing: SigningKey = createSigningKey()): OAuthState {
  return {
    clients: new Map(),
    grants: new Map(),
    accessTokens: new Map(),
    refreshTokens: new Map(),
    codes: new Map(),
    pending: new Map(),
    consent: { mode: 'page' },
    accessTokenLifetimeS,
    rotateRefreshTokens: false,
    lifetimes: { publishingStatus: 'production', refreshTokenLimit: 100 },
    accountPolicies: new Map(),
    signing,
  };
}
