import { z } from 'zod';
import { parseEnv } from './parse-env';
import { type EncryptionKey, secretsVariables } from './secrets';
import { serverVariables } from './server';
import { type EnvOf, integer } from './variables';

/** The admin console's sign-in links and sessions. */
export interface ConsoleConfig {
  signInTtlS: number;
  idleTimeoutS: number;
  sessionMaxS: number;
}

export const consoleVariables = {
  HUB_CONSOLE_SIGN_IN_TTL_S: integer(600, 30, 600).describe(
    'Lifetime (seconds, at most 600) of a one-time admin console sign-in link (`npm run admin-login`).',
  ),
  HUB_CONSOLE_IDLE_TIMEOUT_S: integer(1800, 60, 86_400).describe('An admin console session ends after this many seconds without a request.'),
  HUB_CONSOLE_SESSION_MAX_S: integer(43_200, 300, 7 * 86_400).describe('Absolute lifetime (seconds) of an admin console session, however active.'),
};

export type ConsoleEnv = EnvOf<typeof consoleVariables>;

export const consoleSection = {
  variables: consoleVariables,
  load: (e: ConsoleEnv): { console: ConsoleConfig } => ({
    console: { signInTtlS: e.HUB_CONSOLE_SIGN_IN_TTL_S, idleTimeoutS: e.HUB_CONSOLE_IDLE_TIMEOUT_S, sessionMaxS: e.HUB_CONSOLE_SESSION_MAX_S },
  }),
};

const signInSchema = z.object({
  HUB_PUBLIC_URL: serverVariables.HUB_PUBLIC_URL,
  HUB_ENCRYPTION_KEYS: secretsVariables.HUB_ENCRYPTION_KEYS,
  HUB_CONSOLE_SIGN_IN_TTL_S: consoleVariables.HUB_CONSOLE_SIGN_IN_TTL_S,
});

/** For `npm run admin-login`: what a sign-in link is built and signed with (the Hub's public URL, its encryption keys). */
export function loadSignInConfig(env: Record<string, string | undefined>): { publicUrl: string; encryptionKeys: EncryptionKey[]; ttlS: number } {
  const e = parseEnv(signInSchema, env);
  return { publicUrl: e.HUB_PUBLIC_URL, encryptionKeys: e.HUB_ENCRYPTION_KEYS, ttlS: e.HUB_CONSOLE_SIGN_IN_TTL_S };
}
