import { z } from 'zod';
import { type EnvOf, MIN_SECRET_LENGTH } from './variables';

/** The Hub's own secrets: the service secrets agents present, and the keys that seal stored tokens. */
export interface SecretsConfig {
  serviceSecrets: string[];
  encryptionKeys: EncryptionKey[];
}

export interface EncryptionKey {
  id: string;
  key: Buffer;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

const serviceSecrets = z.string({ error: 'required: comma-separated service secrets, each at least 32 characters' }).transform((raw, ctx) => {
  const secrets = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (secrets.length === 0) {
    ctx.addIssue({ code: 'custom', message: 'required: at least one secret' });
    return z.NEVER;
  }
  secrets.forEach((s, i) => {
    if (s.length < MIN_SECRET_LENGTH) {
      ctx.addIssue({ code: 'custom', message: `secret #${i + 1} is ${s.length} characters; at least ${MIN_SECRET_LENGTH} required` });
    }
    if (/\s/.test(s)) ctx.addIssue({ code: 'custom', message: `secret #${i + 1} contains whitespace` });
  });
  if (new Set(secrets).size !== secrets.length) ctx.addIssue({ code: 'custom', message: 'the same secret is listed twice' });
  return secrets;
});

/** `kid:base64key,...` — the first key encrypts, all of them decrypt (rotation). */
export function parseEncryptionKeys(raw: string): { keys: EncryptionKey[]; problems: string[] } {
  const problems: string[] = [];
  const keys: EncryptionKey[] = [];
  const entries = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (entries.length === 0) problems.push('required: at least one key as kid:base64key');
  entries.forEach((entry, i) => {
    const sep = entry.indexOf(':');
    const id = sep > 0 ? entry.slice(0, sep) : '';
    const b64 = sep > 0 ? entry.slice(sep + 1) : '';
    if (!KEY_ID.test(id)) {
      problems.push(`key #${i + 1}: expected kid:base64key with kid of 1-32 letters, digits, '_' or '-'`);
      return;
    }
    const key = Buffer.from(b64, 'base64');
    if (key.length !== 32 || !/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) {
      problems.push(`key "${id}": must be 32 bytes in base64 (e.g. openssl rand -base64 32), got ${key.length} bytes`);
      return;
    }
    if (keys.some((k) => k.id === id)) {
      problems.push(`key "${id}" is listed twice`);
      return;
    }
    keys.push({ id, key });
  });
  return { keys, problems };
}

const encryptionKeys = z
  .string({ error: 'required: kid:base64key[,kid:base64key...] (32-byte AES-256 keys; the first one encrypts)' })
  .transform((raw, ctx) => {
    const { keys, problems } = parseEncryptionKeys(raw);
    for (const message of problems) ctx.addIssue({ code: 'custom', message });
    return problems.length ? z.NEVER : keys;
  });

export const secretsVariables = {
  HUB_SERVICE_SECRETS: serviceSecrets.describe(
    'Comma-separated secrets agents present as `ServiceSecret`, each at least 32 characters; list two to rotate without downtime.',
  ),
  HUB_ENCRYPTION_KEYS: encryptionKeys.describe(
    '`kid:base64key,...` of 32-byte AES-256 keys (`openssl rand -base64 32`) sealing stored tokens: the first encrypts, all decrypt.',
  ),
};

export type SecretsEnv = EnvOf<typeof secretsVariables>;

export const secretsSection = {
  variables: secretsVariables,
  load: (e: SecretsEnv): SecretsConfig => ({ serviceSecrets: e.HUB_SERVICE_SECRETS, encryptionKeys: e.HUB_ENCRYPTION_KEYS }),
};
