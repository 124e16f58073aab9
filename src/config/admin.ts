import { z } from 'zod';
import { databaseVariables } from './database';
import { ConfigError, parseEnv } from './parse-env';
import { type EnvOf, MIN_SECRET_LENGTH, integer, optionalString } from './variables';

/** The admin API's JWT verification: one algorithm, fixed by which key is configured. None → admin API off. */
export interface AdminAuthConfig {
  key: { algorithm: 'HS256'; secret: string } | { algorithm: 'RS256'; publicKey: string } | null;
  issuer: string;
  audience: string;
  /** Longest `exp - iat` a token may declare (seconds); `iat` is required. */
  maxTtlS: number;
}

/** An HS256 key for admin tokens: long enough that guessing it is not an attack. */
const adminSecret = optionalString.pipe(
  z
    .string()
    .min(MIN_SECRET_LENGTH, { message: `must be at least ${MIN_SECRET_LENGTH} characters` })
    .optional(),
);

/** A PEM public key; `\n` escapes are accepted because most secret stores hold one line. */
const publicKeyPem = optionalString.transform((s, ctx) => {
  if (s === undefined) return undefined;
  const pem = s.replace(/\\n/g, '\n');
  if (!/^-----BEGIN (RSA )?PUBLIC KEY-----[\s\S]+-----END (RSA )?PUBLIC KEY-----$/.test(pem)) {
    ctx.addIssue({ code: 'custom', message: 'must be a PEM public key (-----BEGIN PUBLIC KEY----- …)' });
    return z.NEVER;
  }
  return pem;
});

export const adminVariables = {
  HUB_ADMIN_JWT_SECRET: adminSecret.describe(
    'HS256 secret (at least 32 characters) of admin API tokens; set this or `HUB_ADMIN_JWT_PUBLIC_KEY`, neither turns the admin API off.',
  ),
  HUB_ADMIN_JWT_PUBLIC_KEY: publicKeyPem.describe('RS256 PEM public key of admin API tokens (`\\n` escapes accepted); set this or `HUB_ADMIN_JWT_SECRET`.'),
  HUB_ADMIN_JWT_ISSUER: optionalString.transform((s) => s ?? 'hub-admin').describe('Required `iss` of admin API tokens.'),
  HUB_ADMIN_JWT_AUDIENCE: optionalString.transform((s) => s ?? 'hub-admin-api').describe('Required `aud` of admin API tokens.'),
  HUB_ADMIN_JWT_MAX_TTL_S: integer(30 * 86_400, 60, 366 * 86_400).describe(
    'Longest lifetime (exp - iat, seconds) an admin token may declare; tokens without iat, or claiming more, are refused.',
  ),
};

export type AdminEnv = EnvOf<typeof adminVariables>;

function adminAuth(e: AdminEnv): AdminAuthConfig {
  if (e.HUB_ADMIN_JWT_SECRET && e.HUB_ADMIN_JWT_PUBLIC_KEY) {
    // One algorithm per deployment: accepting both would let an HS256 token signed with the public key through.
    throw new ConfigError(['HUB_ADMIN_JWT_SECRET and HUB_ADMIN_JWT_PUBLIC_KEY: set one, not both']);
  }
  return {
    key: e.HUB_ADMIN_JWT_PUBLIC_KEY
      ? { algorithm: 'RS256', publicKey: e.HUB_ADMIN_JWT_PUBLIC_KEY }
      : e.HUB_ADMIN_JWT_SECRET
        ? { algorithm: 'HS256', secret: e.HUB_ADMIN_JWT_SECRET }
        : null,
    issuer: e.HUB_ADMIN_JWT_ISSUER,
    audience: e.HUB_ADMIN_JWT_AUDIENCE,
    maxTtlS: e.HUB_ADMIN_JWT_MAX_TTL_S,
  };
}

export const adminSection = {
  variables: adminVariables,
  load: (e: AdminEnv): { admin: AdminAuthConfig } => ({ admin: adminAuth(e) }),
};

const adminTokenSchema = z.object({ ...adminVariables, HUB_DATA_DIR: databaseVariables.HUB_DATA_DIR });

/**
 * For `npm run admin-token`: only the admin API's settings, and the data directory where `npm run demo` keeps
 * the secrets it generated. Minting a token needs no database, service secret or encryption key.
 */
export function loadAdminTokenConfig(env: Record<string, string | undefined>): { admin: AdminAuthConfig; dataDir: string } {
  const e = parseEnv(adminTokenSchema, env);
  return { admin: adminAuth(e), dataDir: e.HUB_DATA_DIR };
}
