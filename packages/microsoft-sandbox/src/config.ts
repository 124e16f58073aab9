import { z } from 'zod';

/**
 * The Microsoft sandbox's configuration (MS_SANDBOX_* variables): the one module of the sandbox that reads the
 * environment; everything else receives a parsed `MicrosoftSandboxConfig`. Every variable is checked at once.
 */

export interface MicrosoftSandboxConfig {
  port: number;
  host: string;
  seed: number | undefined;
  control: boolean;
  demoData: boolean;
  app: { clientId: string; clientSecret: string; redirectUris: string[] };
}

/** The app registration the sandbox makes unless told otherwise: public, it is in the source. */
export const MS_SANDBOX_DEFAULT_APP = {
  clientId: '5a1f0c1e-7b1d-4c55-9d2e-0b5a1d7e3c11',
  clientSecret: 'sandbox~client~secret~not~for~production',
} as const;

export class MicrosoftSandboxConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'MicrosoftSandboxConfigError';
  }
}

const optionalString = z
  .string()
  .transform((s) => s.trim())
  .optional()
  .transform((s) => (s === '' ? undefined : s));

const onOff = (def: boolean) =>
  optionalString.transform((s, ctx) => {
    if (s === undefined) return def;
    if (['on', 'true', '1', 'yes'].includes(s)) return true;
    if (['off', 'false', '0', 'no'].includes(s)) return false;
    ctx.addIssue({ code: 'custom', message: 'must be on or off (true/false)' });
    return z.NEVER;
  });

export const MS_SANDBOX_ENV_SCHEMA = z.object({
  MS_SANDBOX_PORT: optionalString
    .transform((s, ctx) => {
      const n = Number(s ?? '8091');
      if (!Number.isInteger(n) || n < 0 || n > 65535) {
        ctx.addIssue({ code: 'custom', message: 'must be an integer between 0 and 65535' });
        return z.NEVER;
      }
      return n;
    })
    .describe('Port of the Microsoft sandbox (`npx microsoft-sandbox`, and beside the Hub in `npm run demo`).'),
  MS_SANDBOX_HOST: optionalString.transform((s) => s ?? '127.0.0.1').describe('Listening address of the Microsoft sandbox.'),
  MS_SANDBOX_SEED: optionalString
    .pipe(
      z
        .string()
        .regex(/^\d{1,9}$/, 'must be a whole number')
        .optional(),
    )
    .transform((s) => (s === undefined ? undefined : Number(s)))
    .describe("Seed of the Microsoft sandbox's ids, tokens and fault draws; unset, random."),
  MS_SANDBOX_CONTROL: onOff(false).describe('Sandbox mode: mounts the control API under `/_sandbox/`.'),
  MS_SANDBOX_DEMO_DATA: onOff(true).describe("Seed the demo tenant's three people, their week of meetings and Ana's inbox."),
  MS_SANDBOX_CLIENT_ID: optionalString
    .pipe(z.uuid('must be a GUID, as Entra application ids are').optional())
    .transform((s) => s ?? MS_SANDBOX_DEFAULT_APP.clientId)
    .describe('Application (client) id of the app registration the Microsoft sandbox makes.'),
  MS_SANDBOX_CLIENT_SECRET: optionalString
    .transform((s) => s ?? MS_SANDBOX_DEFAULT_APP.clientSecret)
    .describe('Client secret of that app (the default is public).'),
  MS_SANDBOX_REDIRECT_URIS: optionalString
    .transform((s, ctx) => {
      const uris = (s ?? 'http://localhost:8080/integrations/microsoft/callback')
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean);
      for (const u of uris) if (!URL.canParse(u)) ctx.addIssue({ code: 'custom', message: `not a URL: ${u}` });
      return uris;
    })
    .describe('Comma-separated redirect URIs of that app, matched exactly.'),
});

export function loadMicrosoftSandboxConfig(env: Record<string, string | undefined>): MicrosoftSandboxConfig {
  const parsed = MS_SANDBOX_ENV_SCHEMA.safeParse(env);
  if (!parsed.success) throw new MicrosoftSandboxConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(environment)'}: ${i.message}`));
  const e = parsed.data;
  return {
    port: e.MS_SANDBOX_PORT,
    host: e.MS_SANDBOX_HOST,
    seed: e.MS_SANDBOX_SEED,
    control: e.MS_SANDBOX_CONTROL,
    demoData: e.MS_SANDBOX_DEMO_DATA,
    app: { clientId: e.MS_SANDBOX_CLIENT_ID, clientSecret: e.MS_SANDBOX_CLIENT_SECRET, redirectUris: e.MS_SANDBOX_REDIRECT_URIS },
  };
}

/** The process's environment: the sandbox's only read of it. */
export function processEnv(): Record<string, string | undefined> {
  return process.env;
}
