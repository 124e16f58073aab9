import { type KeyObject, generateKeyPairSync, randomUUID } from 'node:crypto';

/** An app registration. `secret` set = a confidential client (web app); unset = a public client. */
export interface AppRegistration {
  clientId: string;
  name: string;
  secret: string | undefined;
  redirectUris: string[];
  /** The Graph permissions the registration lists: what `/.default` stands for. */
  permissions: string[];
}

export interface AuthCode {
  clientId: string;
  userId: string;
  scopes: string[];
  redirectUri: string;
  challenge: string | undefined;
  challengeMethod: 'S256' | 'plain';
  nonce: string | undefined;
  issuedAt: number;
  redeemed: boolean;
}

export interface RefreshGrant {
  token: string;
  clientId: string;
  userId: string;
  /** Graph scopes plus the OIDC scopes asked for at sign-in. */
  scopes: string[];
  issuedAt: number;
  /** A consent withdrawn (control API, or the user in My Apps): the next refresh answers AADSTS65001. */
  consentWithdrawn: boolean;
}

export interface AccessGrant {
  clientId: string;
  userId: string;
  scopes: string[];
  issuedAt: number;
  expiresAt: number;
}

/** How the consent screen is answered: by a person on the HTML page, or at once by the control API's choice. */
export interface ConsentPolicy {
  mode: 'page' | 'auto';
  /** auto: who signs in (by UPN); the first person of the tenant when absent. */
  account?: string;
  /** auto: the subset of the requested Graph scopes the user grants (partial consent); all when absent. */
  grant?: string[];
  /** auto: the user declines (AADSTS65004). */
  deny?: boolean;
}

export interface Lifetimes {
  /** Access token lifetime bounds in seconds: "a random value ranging between 60-90 minutes"
   * (learn.microsoft.com/entra/identity-platform/configurable-token-lifetimes#access-token-lifetime). */
  accessTokenMinS: number;
  accessTokenMaxS: number;
  /** "Authorization codes are short lived… expire after about 10 minutes" (v2-oauth2-auth-code-flow). */
  authCodeS: number;
  /** Refresh tokens: "90 days for all other scenarios" (refresh-tokens#token-lifetime), a sliding window of inactivity. */
  refreshInactiveS: number;
}

export interface IdentityState {
  apps: Map<string, AppRegistration>;
  codes: Map<string, AuthCode>;
  refresh: Map<string, RefreshGrant>;
  access: Map<string, AccessGrant>;
  /** User consents: `${clientId}|${userId}` → granted Graph scopes. */
  consents: Map<string, Set<string>>;
  consent: ConsentPolicy;
  lifetimes: Lifetimes;
  signing: SigningKey;
}

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  jwk: Record<string, unknown>;
}

/** The RS256 key id tokens are signed with; published at /{tenant}/discovery/v2.0/keys. Kept across resets. */
export function createSigningKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomUUID().replace(/-/g, '').slice(0, 27);
  return { kid, privateKey, jwk: { kty: 'RSA', use: 'sig', kid, ...publicKey.export({ format: 'jwk' }) } };
}

export const DEFAULT_LIFETIMES: Lifetimes = { accessTokenMinS: 3600, accessTokenMaxS: 5400, authCodeS: 600, refreshInactiveS: 90 * 86_400 };

export function createIdentityState(signing: SigningKey, lifetimes: Partial<Lifetimes> = {}): IdentityState {
  return {
    apps: new Map(),
    codes: new Map(),
    refresh: new Map(),
    access: new Map(),
    consents: new Map(),
    consent: { mode: 'page' },
    lifetimes: { ...DEFAULT_LIFETIMES, ...lifetimes },
    signing,
  };
}

export const consentKey = (clientId: string, userId: string) => `${clientId}|${userId}`;
