import { type EnvOf, MIN_SECRET_LENGTH, integer, onOff, optionalString } from './variables';
import { targetUrlProblem } from './webhook-targets';

export interface WebhookConfig {
  /** The operator's receiver for every customer's events (HUB_WEBHOOK_URL); undefined = none. */
  url: string | undefined;
  /** HUB_WEBHOOK_SECRETS: every one signs (two during a rotation). */
  secrets: string[];
  /** HUB_WEBHOOK_ALLOW_PRIVATE: http and private/loopback targets allowed (tests, private networks). */
  allowPrivate: boolean;
  timeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  pollIntervalMs: number;
  /** How long a customer's previous secret keeps signing after a rotation. */
  secretOverlapS: number;
}

/** The prefix of a secret in the Standard Webhooks form (`whsec_` + base64 of the key's bytes). */
export const SECRET_PREFIX = 'whsec_';

/** Why a `whsec_` secret is unusable (null when it is fine, or not in that form). */
export function secretProblem(secret: string): string | null {
  if (!secret.startsWith(SECRET_PREFIX)) return null;
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return 'is not whsec_ followed by standard base64';
  const bytes = Buffer.from(encoded, 'base64').length;
  // The standard asks for keys of 24 to 64 bytes.
  return bytes < 24 || bytes > 64 ? `encodes ${bytes} bytes; Standard Webhooks keys are 24 to 64` : null;
}

export const webhooksVariables = {
  HUB_WEBHOOK_URL: optionalString.describe(
    "Receiver of every customer's connection webhooks (connection.connected, .insufficient_scopes, .expired, .disconnected); customers can add their own through the admin API.",
  ),
  HUB_WEBHOOK_SECRETS: optionalString
    .transform((raw, ctx) => {
      const secrets = (raw ?? '')
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x !== '');
      secrets.forEach((x, i) => {
        const problem = secretProblem(x);
        if (problem !== null) ctx.addIssue({ code: 'custom', message: `secret #${i + 1} ${problem}` });
        else if (x.length < MIN_SECRET_LENGTH)
          ctx.addIssue({ code: 'custom', message: `secret #${i + 1} is ${x.length} characters; at least ${MIN_SECRET_LENGTH} required` });
      });
      return secrets;
    })
    .describe(
      'Comma-separated secrets signing the webhooks sent to `HUB_WEBHOOK_URL` (Standard Webhooks); each listed secret signs (two during a rotation). `whsec_` + base64 of 24–64 random bytes is the form every Standard Webhooks library takes; another string signs with its own bytes. Required with `HUB_WEBHOOK_URL`.',
    ),
  HUB_WEBHOOK_ALLOW_PRIVATE: onOff(false).describe(
    'Allow webhook targets over http and on private, loopback or link-local addresses (tests, private networks); off, such targets are refused.',
  ),
  HUB_WEBHOOK_TIMEOUT_MS: integer(5_000, 100, 60_000).describe('Longest one webhook delivery may take; no answer by then is a failed attempt.'),
  HUB_WEBHOOK_MAX_ATTEMPTS: integer(12, 1, 100).describe('Delivery attempts per webhook before it is marked failed.'),
  HUB_WEBHOOK_RETRY_BASE_MS: integer(5_000, 10, 3_600_000).describe(
    'Wait before the second delivery attempt; it doubles with each attempt (jittered, at most an hour).',
  ),
  HUB_WEBHOOK_POLL_MS: integer(1_000, 10, 60_000).describe('How often each replica looks for webhooks due for delivery.'),
  HUB_WEBHOOK_SECRET_OVERLAP_S: integer(86_400, 0, 30 * 86_400).describe(
    'After a customer rotates its webhook secret, how long the previous secret keeps signing alongside the new one.',
  ),
};

export type WebhooksEnv = EnvOf<typeof webhooksVariables>;

/** The operator's webhook receiver: signed (a secret is required) and, unless allowed, https on a public host. */
function webhookProblems(e: WebhooksEnv): string[] {
  if (e.HUB_WEBHOOK_URL === undefined) return [];
  const problems: string[] = [];
  if (e.HUB_WEBHOOK_SECRETS.length === 0) problems.push('HUB_WEBHOOK_SECRETS: required with HUB_WEBHOOK_URL (webhooks are always signed)');
  const problem = targetUrlProblem(e.HUB_WEBHOOK_URL, e.HUB_WEBHOOK_ALLOW_PRIVATE);
  if (problem !== null)
    problems.push(`HUB_WEBHOOK_URL: ${problem}${e.HUB_WEBHOOK_ALLOW_PRIVATE ? '' : ' (HUB_WEBHOOK_ALLOW_PRIVATE=true allows http and private addresses)'}`);
  return problems;
}

export const webhooksSection = {
  variables: webhooksVariables,
  problems: webhookProblems,
  load: (e: WebhooksEnv): { webhooks: WebhookConfig } => ({
    webhooks: {
      url: e.HUB_WEBHOOK_URL,
      secrets: e.HUB_WEBHOOK_SECRETS,
      allowPrivate: e.HUB_WEBHOOK_ALLOW_PRIVATE,
      timeoutMs: e.HUB_WEBHOOK_TIMEOUT_MS,
      maxAttempts: e.HUB_WEBHOOK_MAX_ATTEMPTS,
      retryBaseMs: e.HUB_WEBHOOK_RETRY_BASE_MS,
      pollIntervalMs: e.HUB_WEBHOOK_POLL_MS,
      secretOverlapS: e.HUB_WEBHOOK_SECRET_OVERLAP_S,
    },
  }),
};
