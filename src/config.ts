import { z } from 'zod';

/**
 * The one place that reads the environment. Everything else receives a parsed `Config`.
 * Every variable is checked at once, so a misconfigured deployment learns all of its mistakes in one
 * message (never echoing a secret's value).
 */

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const MIN_SECRET_LENGTH = 32;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

export interface EncryptionKey {
  id: string;
  key: Buffer;
}

const optionalString = z
  .string()
  .transform((s) => s.trim())
  .optional()
  .transform((s) => (s === '' ? undefined : s));

const integer = (def: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((s, ctx) => {
      if (s === undefined || s.trim() === '') return def;
      const n = Number(s);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `must be an integer between ${min} and ${max}` });
        return z.NEVER;
      }
      return n;
    });

const serviceSecrets = z
  .string({ error: 'required: comma-separated service secrets, each at least 32 characters' })
  .transform((raw, ctx) => {
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

const url = (protocols: string[], what: string) =>
  z.string({ error: `required: a ${what} URL` }).transform((raw, ctx) => {
    let parsed: URL;
    try {
      parsed = new URL(raw.trim());
    } catch {
      ctx.addIssue({ code: 'custom', message: `must be a ${what} URL` });
      return z.NEVER;
    }
    if (!protocols.includes(parsed.protocol)) {
      ctx.addIssue({ code: 'custom', message: `must use ${protocols.map((p) => p.replace(':', '://')).join(' or ')}` });
      return z.NEVER;
    }
    return raw.trim();
  });

const trustProxy = z
  .string()
  .optional()
  .transform((s): boolean | number | string => {
    const v = s?.trim() ?? '';
    if (v === '' || v === 'false') return false;
    if (v === 'true') return true;
    if (/^\d+$/.test(v)) return Number(v);
    return v; // an express "trust proxy" list such as "loopback, 10.0.0.0/8"
  });

const envSchema = z.object({
  HUB_PORT: integer(8080, 0, 65535),
  HUB_HOST: optionalString.transform((s) => s ?? '0.0.0.0'),
  HUB_PUBLIC_URL: url(['http:', 'https:'], 'http(s)').transform((s) => s.replace(/\/+$/, '')),
  HUB_SERVICE_SECRETS: serviceSecrets,
  HUB_ENCRYPTION_KEYS: encryptionKeys,
  DATABASE_URL: optionalString.pipe(url(['postgres:', 'postgresql:'], 'postgres').optional()),
  HUB_DATA_DIR: optionalString.transform((s) => s ?? './data'),
  HUB_DB_POOL_MAX: integer(10, 1, 500),
  REDIS_URL: optionalString.pipe(url(['redis:', 'rediss:'], 'redis').optional()),
  LOG_LEVEL: optionalString.pipe(z.enum(LOG_LEVELS).optional()).transform((s) => s ?? 'info'),
  HUB_SHUTDOWN_TIMEOUT_MS: integer(10_000, 0, 600_000),
  HUB_TRUST_PROXY: trustProxy,
});

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  serviceSecrets: string[];
  encryptionKeys: EncryptionKey[];
  database: { kind: 'postgres'; url: string; poolMax: number } | { kind: 'pglite'; dataDir: string };
  redisUrl: string | undefined;
  logLevel: (typeof LOG_LEVELS)[number];
  shutdownTimeoutMs: number;
  trustProxy: boolean | number | string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses an environment-like record. Throws ConfigError naming every missing or invalid variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(environment)'}: ${i.message}`));
  }
  const e = parsed.data;
  return {
    port: e.HUB_PORT,
    host: e.HUB_HOST,
    publicUrl: e.HUB_PUBLIC_URL,
    serviceSecrets: e.HUB_SERVICE_SECRETS,
    encryptionKeys: e.HUB_ENCRYPTION_KEYS,
    database: e.DATABASE_URL
      ? { kind: 'postgres', url: e.DATABASE_URL, poolMax: e.HUB_DB_POOL_MAX }
      : { kind: 'pglite', dataDir: e.HUB_DATA_DIR },
    redisUrl: e.REDIS_URL,
    logLevel: e.LOG_LEVEL,
    shutdownTimeoutMs: e.HUB_SHUTDOWN_TIMEOUT_MS,
    trustProxy: e.HUB_TRUST_PROXY,
  };
}

/** The process environment, for entry points (server, CLI, demo, bench) only. */
export function processEnv(): Record<string, string | undefined> {
  return process.env;
}

/** For entry points: the parsed configuration, or every problem on stderr and exit status 1. */
export function loadConfigOrExit(env: Record<string, string | undefined> = processEnv()): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}
