import { z } from 'zod';

/**
 * The Google sandbox's configuration (SANDBOX_* variables): the one module of the sandbox that reads the
 * environment; everything else receives a parsed `SandboxConfig`. Every variable is checked at once, so a
 * mistaken start learns all of its mistakes in one message. Each variable says what it does in `.describe('…')`:
 * the Hub's README lists them from this schema (`npm run docs:config`).
 */

export interface SandboxConfig {
  port: number;
  host: string;
  seed: number | undefined;
  /** Sandbox mode: mounts the control API under /_sandbox/. */
  control: boolean;
  /** Seed the demo accounts (a week of events, a small inbox). */
  demoData: boolean;
  client: { clientId: string; clientSecret: string; redirectUris: string[] };
  accessTokenLifetimeS: number;
}

/** The OAuth client the sandbox registers unless told otherwise: public, it is in the source. */
export const SANDBOX_DEFAULT_CLIENT = {
  clientId: 'hub-sandbox.apps.googleusercontent.com',
  clientSecret: 'GOCSPX-sandbox-client-secret',
} as const;

export class SandboxConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'SandboxConfigError';
  }
}

/** Unset and blank are the same. */
const optionalString = z
  .string()
  .transform((s) => s.trim())
  .optional()
  .transform((s) => (s === '' ? undefined : s));

const integer = (def: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((s, ctx): number => {
      if (s === undefined || s.trim() === '') return def;
      const n = Number(s);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `must be an integer between ${min} and ${max}` });
        return z.NEVER;
      }
      return n;
    });

/** `on`/`off` switches (also true/false, 1/0, yes/no). */
const onOff = (def: boolean) =>
  optionalString.transform((s, ctx) => {
    if (s === undefined) return def;
    if (['on', 'true', '1', 'yes'].includes(s)) return true;
    if (['off', 'false', '0', 'no'].includes(s)) return false;
    ctx.addIssue({ code: 'custom', message: 'must be on or off (true/false)' });
    return z.NEVER;
  });

export const SANDBOX_ENV_SCHEMA = z.object({
  SANDBOX_PORT: integer(8090, 0, 65535).describe('Port of the Google sandbox (`npm run sandbox`, and beside the Hub in `npm run demo`).'),
  SANDBOX_HOST: optionalString
    .transform((s) => s ?? '127.0.0.1')
    .describe('Listening address of `npm run sandbox` (the demo derives its own from `DEMO_HOST`).'),
  SANDBOX_SEED: optionalString
    .pipe(
      z
        .string()
        .regex(/^\d{1,9}$/, 'must be a whole number')
        .optional(),
    )
    .transform((s) => (s === undefined ? undefined : Number(s)))
    .describe("Seed of the sandbox's ids, tokens and fault draws, for reproducible runs; unset, random."),
  SANDBOX_CONTROL: onOff(false).describe('Sandbox mode: mounts the control API under `/_sandbox/` (always on in the demo and tests).'),
  SANDBOX_DEMO_DATA: onOff(true).describe("Seed the demo's three accounts, their week of events and Ana's inbox."),
  SANDBOX_CLIENT_ID: optionalString
    .transform((s) => s ?? SANDBOX_DEFAULT_CLIENT.clientId)
    .describe('Client id of the OAuth client the sandbox registers (the default matches the demo Hub).'),
  SANDBOX_CLIENT_SECRET: optionalString
    .transform((s) => s ?? SANDBOX_DEFAULT_CLIENT.clientSecret)
    .describe('Client secret of that OAuth client (the default is public: it is in the source).'),
  SANDBOX_REDIRECT_URIS: optionalString
    .transform((s, ctx) => {
      const uris = (s ?? 'http://localhost:8080/integrations/google/callback')
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean);
      for (const u of uris) if (!URL.canParse(u)) ctx.addIssue({ code: 'custom', message: `not a URL: ${u}` });
      return uris;
    })
    .describe('Comma-separated redirect URIs that OAuth client may use, matched exactly as Google does.'),
  SANDBOX_TOKEN_LIFETIME_S: integer(3600, 1, 86_400).describe('Lifetime of the access tokens the sandbox issues, in seconds.'),
});

/** The parsed configuration; throws a SandboxConfigError naming every problem (never a value). */
export function loadSandboxConfig(env: Record<string, string | undefined>): SandboxConfig {
  const parsed = SANDBOX_ENV_SCHEMA.safeParse(env);
  if (!parsed.success) throw new SandboxConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(environment)'}: ${i.message}`));
  const e = parsed.data;
  return {
    port: e.SANDBOX_PORT,
    host: e.SANDBOX_HOST,
    seed: e.SANDBOX_SEED,
    control: e.SANDBOX_CONTROL,
    demoData: e.SANDBOX_DEMO_DATA,
    client: { clientId: e.SANDBOX_CLIENT_ID, clientSecret: e.SANDBOX_CLIENT_SECRET, redirectUris: e.SANDBOX_REDIRECT_URIS },
    accessTokenLifetimeS: e.SANDBOX_TOKEN_LIFETIME_S,
  };
}

/** The process's environment: the sandbox's only read of it. */
export function processEnv(): Record<string, string | undefined> {
  return process.env;
}
