import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import type { AuditConfig } from './audit/audit';
import type { WebhookConfig } from './webhooks/webhooks';
import { targetUrlProblem } from './webhooks/target';
import { secretProblem } from './webhooks/signature';

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

/** An integer variable in [min, max]; unset → `def` (pass undefined when the default depends on other variables). */
const integer = <D extends number | undefined>(def: D, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((s, ctx): number | D => {
      if (s === undefined || s.trim() === '') return def;
      const n = Number(s);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `must be an integer between ${min} and ${max}` });
        return z.NEVER;
      }
      return n;
    });

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

/** Google's real endpoints: the defaults, so production needs only a client id and secret. */
export const GOOGLE_ENDPOINTS = {
  calendarRootUrl: 'https://www.googleapis.com/',
  gmailRootUrl: 'https://gmail.googleapis.com/',
  authUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
  tokenUrl: 'https://oauth2.googleapis.com/token',
  revokeUrl: 'https://oauth2.googleapis.com/revoke',
  tokenInfoUrl: 'https://oauth2.googleapis.com/tokeninfo',
  pemCertsUrl: 'https://www.googleapis.com/oauth2/v1/certs',
  jwkCertsUrl: 'https://www.googleapis.com/oauth2/v3/certs',
} as const;

export type GoogleEndpoints = { -readonly [K in keyof typeof GOOGLE_ENDPOINTS]: string };

const httpUrl = (what: string) => optionalString.pipe(url(['http:', 'https:'], what).optional());

/** An API root is an origin (googleapis appends the full path), so anything after the host is refused. */
const apiRoot = optionalString.pipe(
  url(['http:', 'https:'], 'http(s) origin')
    .refine((u) => new URL(u).pathname === '/' && !new URL(u).search, { message: 'must be an origin such as http://127.0.0.1:8090 (no path)' })
    .transform((u) => `${new URL(u).origin}/`)
    .optional(),
);

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

/** Where a finished connect flow may send the person: a comma-separated list of URL prefixes (origin + path). */
const returnUrlPrefixes = optionalString.transform((s, ctx) => {
  const prefixes = (s ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  for (const p of prefixes) {
    let u: URL;
    try {
      u = new URL(p);
    } catch {
      ctx.addIssue({ code: 'custom', message: `"${p}" is not a URL` });
      continue;
    }
    if (u.protocol !== 'https:' && u.protocol !== 'http:') ctx.addIssue({ code: 'custom', message: `"${p}" must be http(s)` });
    if (u.search || u.hash || u.username || u.password) ctx.addIssue({ code: 'custom', message: `"${p}" must be an origin and path only` });
  }
  return prefixes.map((p) => new URL(p).toString());
});

/** Browser origins allowed to call POST /mcp: a comma-separated list of exact origins (scheme://host[:port]). */
const origins = optionalString.transform((s, ctx) => {
  const list = (s ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  for (const o of list) {
    let u: URL | undefined;
    try {
      u = new URL(o);
    } catch {
      u = undefined;
    }
    if (!u || u.origin !== o) ctx.addIssue({ code: 'custom', message: `"${o}" is not an origin (scheme://host[:port], no path)` });
  }
  return list;
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

/**
 * Every variable the Hub reads, each with one sentence on what it does: the README's configuration table is
 * generated from these descriptions and the defaults the schema yields for an unset variable
 * (`npm run docs:config`; a test fails when the README is stale).
 */
const envSchema = z.object({
  NODE_ENV: optionalString.describe(
    'Set to `production` in deployments (the image does): the Hub then refuses to start on embedded PGlite or without a Google OAuth client.',
  ),
  HUB_PORT: integer(8080, 0, 65535).describe('Listening port (`0` = any free port).'),
  HUB_HOST: optionalString.transform((s) => s ?? '0.0.0.0').describe('Listening address.'),
  HUB_PUBLIC_URL: url(['http:', 'https:'], 'http(s)')
    .transform((s) => s.replace(/\/+$/, ''))
    .describe('Public base URL of the Hub (the demo uses `http://$DEMO_HOST:$HUB_PORT`): every `setup_url` and the OAuth callback are built on it.'),
  HUB_SERVICE_SECRETS: serviceSecrets.describe(
    'Comma-separated secrets agents present as `ServiceSecret`, each at least 32 characters; list two to rotate without downtime.',
  ),
  HUB_ENCRYPTION_KEYS: encryptionKeys.describe(
    '`kid:base64key,...` of 32-byte AES-256 keys (`openssl rand -base64 32`) sealing stored tokens: the first encrypts, all decrypt.',
  ),
  DATABASE_URL: optionalString
    .pipe(url(['postgres:', 'postgresql:'], 'postgres').optional())
    .describe('`postgres://…` of a PostgreSQL server; unset, the Hub uses embedded PGlite in `HUB_DATA_DIR` (one process only).'),
  HUB_DATA_DIR: optionalString
    .transform((s) => s ?? './data')
    .describe('Embedded database directory, used only without `DATABASE_URL` (`memory://` keeps it in memory; a lock file refuses a second process).'),
  HUB_PGLITE_THREAD: onOff(true).describe(
    'Embedded PGlite runs on a thread of its own, so its statements (~0.3–1.2 ms of CPU each) never hold the event loop (`off`: in the request thread).',
  ),
  HUB_ALLOW_EMBEDDED_DB: onOff(false).describe(
    'With `NODE_ENV=production`, allow embedded PGlite anyway (put `HUB_DATA_DIR` on a volume: a recreated container loses every connection otherwise).',
  ),
  HUB_MIGRATE_ON_START: onOff(true).describe(
    'Apply pending migrations at start; `false` when a separate `migrate` step runs them (deploy/), and then a server whose schema is behind refuses to start.',
  ),
  HUB_DB_POOL_MAX: integer(10, 1, 500).describe('PostgreSQL connections per replica.'),
  HUB_DB_QUERY_TIMEOUT_MS: integer(2_000, 100, 60_000).describe(
    'PostgreSQL: how long one statement may take, the wait for a pooled connection included (ms); past it the database counts as unavailable (a call answers 503 `SERVICE_UNAVAILABLE` with `Retry-After`, an audit batch is retried) and the connection is dropped. Migrations have their own, longer bound.',
  ),
  REDIS_URL: optionalString
    .pipe(url(['redis:', 'rediss:'], 'redis').optional())
    .describe('`redis://…` for state shared by replicas: rate limits, idempotency records, the token-refresh lock, cache invalidation (readiness checks it).'),
  LOG_LEVEL: optionalString
    .pipe(z.enum(LOG_LEVELS).optional())
    .transform((s) => s ?? 'info')
    .describe(`Log level: ${LOG_LEVELS.map((l) => `\`${l}\``).join(', ')}.`),
  HUB_SHUTDOWN_TIMEOUT_MS: integer(undefined, 0, 600_000)
    .meta({ defaultText: '`$HUB_TOOL_DEADLINE_MS + 2000`' })
    .describe(
      'After SIGTERM/SIGINT and the grace period: how long in-flight calls may finish before connections are cut (ms); at least HUB_TOOL_DEADLINE_MS, default HUB_TOOL_DEADLINE_MS + 2000.',
    ),
  HUB_SHUTDOWN_GRACE_MS: integer(5_000, 0, 120_000).describe(
    'After SIGTERM/SIGINT: how long /readyz answers 503 while the Hub still accepts and serves connections, so a load balancer drains it first (ms).',
  ),
  HUB_REDIS_PROBE_INTERVAL_MS: integer(1_000, 100, 60_000).describe(
    'How often Redis is PINGed: a heartbeat while it answers, a reconnection check while it does not (ms).',
  ),
  HUB_METRICS: onOff(true).describe('Prometheus metrics (`GET /metrics`, or on `HUB_METRICS_PORT`); `off` records nothing and serves no `/metrics`.'),
  HUB_METRICS_PORT: integer(undefined, 0, 65535).describe(
    'Serve `/metrics` on this port (its own listener, on `HUB_HOST`) instead of the API port; unset = `GET /metrics` on the API port.',
  ),
  HUB_METRICS_TOKEN: optionalString
    .refine((s) => s === undefined || s.length >= 16, 'must be at least 16 characters')
    .describe(
      'When set, `/metrics` requires `Authorization: Bearer <token>` (compared in constant time; scrubbed from logs). Required with `NODE_ENV=production` unless `HUB_METRICS_PORT` is set.',
    ),
  HUB_METRICS_CONNECTIONS_TTL_S: integer(30, 1, 3600).describe(
    'How long the `hub_connections` gauge reuses its count from the database (s): scrapes never load the store.',
  ),
  OTEL_SDK_DISABLED: onOff(false).describe("OpenTelemetry's standard switch: `true` keeps the tracing SDK off whatever else is set."),
  OTEL_TRACES_EXPORTER: optionalString.describe(
    "OpenTelemetry's standard exporter choice (`otlp`, `console`, `none`): set (and not `none`), it starts the tracing SDK; the SDK reads the other `OTEL_*` variables itself.",
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalString.describe('OTLP collector endpoint (standard): set, it starts the tracing SDK with the OTLP exporter.'),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalString.describe(
    'OTLP endpoint for traces only (standard): set, it starts the tracing SDK with the OTLP exporter.',
  ),
  HUB_TRUST_PROXY: trustProxy.describe('Express `trust proxy` setting behind a load balancer: `true`, a hop count, or addresses (`loopback, 10.0.0.0/8`).'),
  HUB_GOOGLE_CLIENT_ID: optionalString.describe("The Hub's Google OAuth client id (required with `NODE_ENV=production`)."),
  HUB_GOOGLE_CLIENT_SECRET: optionalString.describe("The Hub's Google OAuth client secret (required with `NODE_ENV=production`; scrubbed from logs)."),
  HUB_GOOGLE_SANDBOX_URL: apiRoot.describe(
    'Origin of a Google sandbox (`npm run sandbox`): moves every Google endpoint there; the explicit endpoint variables below still win.',
  ),
  HUB_GOOGLE_API_ROOT_URL: apiRoot
    .meta({ defaultText: "Google's" })
    .describe('API origin (no path) for Calendar (`https://www.googleapis.com/`) and Gmail (`https://gmail.googleapis.com/`).'),
  HUB_GOOGLE_AUTH_URL: httpUrl('http(s)')
    .meta({ defaultText: `\`${GOOGLE_ENDPOINTS.authUrl}\`` })
    .describe("OAuth consent endpoint the person's browser is sent to."),
  HUB_GOOGLE_TOKEN_URL: httpUrl('http(s)')
    .meta({ defaultText: `\`${GOOGLE_ENDPOINTS.tokenUrl}\`` })
    .describe('OAuth token endpoint (code exchange and refresh).'),
  HUB_GOOGLE_REVOKE_URL: httpUrl('http(s)')
    .meta({ defaultText: `\`${GOOGLE_ENDPOINTS.revokeUrl}\`` })
    .describe('OAuth revocation endpoint (admin disconnect).'),
  HUB_GOOGLE_TOKENINFO_URL: httpUrl('http(s)')
    .meta({ defaultText: `\`${GOOGLE_ENDPOINTS.tokenInfoUrl}\`` })
    .describe('OAuth tokeninfo endpoint.'),
  HUB_RATE_LIMIT_WINDOW_S: integer(60, 1, 3600).describe('Length of the rate-limit window in seconds.'),
  HUB_RATE_LIMIT_CUSTOMER_POINTS: integer(600, 1, 10_000_000).describe('Points one customer may spend per window, across every replica with Redis.'),
  HUB_RATE_LIMIT_AGENT_POINTS: integer(300, 1, 10_000_000).describe(
    'Points one (customer, agent) pair may spend per window, so one runaway agent cannot starve its siblings.',
  ),
  HUB_RATE_LIMIT_AGENTS_PER_CUSTOMER: integer(50, 1, 100_000).describe(
    'Distinct agent_ids one customer may use per window; a further new agent_id gets 429 RATE_LIMITED (scope distinct_agents).',
  ),
  HUB_RATE_LIMIT_REDIS_TIMEOUT_MS: integer(50, 1, 5_000).describe(
    'How long a rate-limit charge waits for Redis before this call is limited in memory and Redis is probed (ms).',
  ),
  HUB_RATE_LIMITED_HOLD_MS: integer(250, 0, 5_000).describe(
    'How long a call refused by a rate limit (execute or MCP) is held before its 429 is sent, so a caller that resends at once can ask only a few times a second per connection and other customers do not wait behind its refusals; 0 answers at once. A client that honours Retry-After never notices.',
  ),
  HUB_RATE_LIMIT_READ_COST: integer(1, 1, 1000).describe('Points a read tool call costs.'),
  HUB_RATE_LIMIT_WRITE_COST: integer(5, 1, 1000).describe('Points a write tool call costs.'),
  HUB_RATE_LIMIT_TOOL_COSTS: optionalString
    .transform((s, ctx) => {
      const costs: Record<string, number> = {};
      for (const entry of (s ?? '')
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean)) {
        const m = /^([a-z][a-z0-9_]{0,63})=(\d{1,4})$/.exec(entry);
        if (!m || Number(m[2]) < 1) ctx.addIssue({ code: 'custom', message: `"${entry}": expected tool_name=points (points ≥ 1)` });
        else costs[m[1]!] = Number(m[2]);
      }
      return costs;
    })
    .describe('Per-tool costs overriding the read/write cost: `tool_name=points,...`.'),
  HUB_PROCESSES: integer(1, 1, 256).describe(
    "Hub processes on this machine (node:cluster, one per core: `nproc`), sharing the port; more than 1 needs DATABASE_URL and REDIS_URL (embedded PGlite is one process's). Limits without Redis count each process as a replica.",
  ),
  HUB_REPLICAS: integer(1, 1, 1000).describe(
    "Replicas sharing the limits: when Redis is unreachable each replica's in-memory limiter allows 1/HUB_REPLICAS of every limit.",
  ),
  HUB_TOOL_DEADLINE_MS: integer(25_000, 100, 300_000).describe('Deadline of a whole tool call, retries and waits included.'),
  HUB_GOOGLE_TIMEOUT_MS: integer(10_000, 50, 120_000).describe('Timeout of one HTTP attempt to Google (also bounds a token refresh).'),
  HUB_GOOGLE_HTTP: optionalString
    .pipe(z.enum(['lean', 'node-fetch']).optional())
    .transform((s) => s ?? 'lean')
    .describe(
      "How API requests to Google are sent: `lean` (Node's http with node-fetch's headers; ~0.5 ms less CPU per request) or `node-fetch` (gaxios' default). Google receives the same requests either way.",
    ),
  HUB_GOOGLE_MAX_RETRIES: integer(3, 0, 10).describe('Retries of a failed Google call where retrying is safe (never a Gmail send once bytes left).'),
  HUB_GOOGLE_RETRY_BASE_MS: integer(250, 1, 60_000).describe('Base of the exponential backoff between retries (full jitter).'),
  HUB_GOOGLE_RETRY_MAX_MS: integer(8_000, 1, 120_000).describe('Longest wait between two retries.'),
  HUB_BREAKER_FAILURES: integer(5, 1, 1000).describe(
    "Consecutive failed calls (5xx, network, timeout; a call and its retries count once) that open one connection's circuit.",
  ),
  HUB_BREAKER_HALF_OPEN_MS: integer(30_000, 100, 3_600_000).describe(
    "How long an open circuit (a connection's or an integration's) refuses calls before letting one test call through.",
  ),
  HUB_GLOBAL_BREAKER_WINDOW_S: integer(60, 1, 3600).describe("The sliding window over which an integration's failure rate across all connections is measured."),
  HUB_GLOBAL_BREAKER_MIN_CALLS: integer(50, 1, 1_000_000).describe(
    'Calls an integration must have made within the window before its failure rate may open the integration-wide circuit.',
  ),
  HUB_GLOBAL_BREAKER_MIN_CONNECTIONS: integer(5, 1, 10_000).describe(
    'Distinct connections that must have failed within the window before the integration-wide circuit may open.',
  ),
  HUB_GLOBAL_BREAKER_FAILURE_PERCENT: integer(50, 1, 100).describe(
    'Failed calls, in percent of all calls in the window, that open the integration-wide circuit.',
  ),
  HUB_GMAIL_MAX_IN_FLIGHT: integer(10, 1, 1000).describe(
    'Gmail requests one replica sends to one mailbox at once; more wait their turn (fairly across customers) within the deadline.',
  ),
  HUB_GMAIL_QUOTA_UNITS: integer(3000, 1, 10_000_000).describe(
    'Gmail quota units one connected mailbox may spend per window, charged before each request (shared by every customer of that mailbox).',
  ),
  HUB_GMAIL_QUOTA_WINDOW_S: integer(60, 1, 3600).describe('The fixed window of HUB_GMAIL_QUOTA_UNITS, in seconds.'),
  HUB_GMAIL_QUOTA_COSTS: optionalString
    .transform((s, ctx) => {
      const costs: Record<string, number> = {};
      for (const entry of (s ?? '')
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean)) {
        const m = /^([A-Za-z][A-Za-z.]{0,63})=(\d{1,6})$/.exec(entry);
        if (!m || Number(m[2]) < 1) ctx.addIssue({ code: 'custom', message: `"${entry}": expected method=units (e.g. messages.get=5, units ≥ 1)` });
        else costs[m[1]!] = Number(m[2]);
      }
      return costs;
    })
    .describe("Overrides of the quota units per Gmail method (`messages.get=5,messages.send=100`); the defaults are Google's quota page."),
  HUB_CALENDAR_QUOTA_COOLDOWN_S: integer(3600, 1, 7 * 86_400).describe(
    "After Calendar answers 403 quotaExceeded, how long the account's calendar writes are refused locally (Google keeps it read-only for hours).",
  ),
  HUB_IDEMPOTENCY_TTL_S: integer(86_400, 60, 30 * 86_400).describe('How long the first answer of a write with a `request_id` is kept and replayed to retries.'),
  HUB_MAX_BODY_CHARS: integer(100_000, 1_000, 10_000_000).describe(
    'Longest message body the email tools return; longer ones are cut and flagged `truncated: true`.',
  ),
  HUB_HTML_WORKERS: integer(Math.max(1, Math.min(4, availableParallelism() - 1)), 1, 64)
    .meta({ defaultText: 'cores − 1, within 1–4' }) // machine-dependent: the README must not change with the machine
    .describe('Worker threads converting HTML mail to text off the event loop (default: one per core beyond the first, 1–4).'),
  HUB_HTML_TIMEOUT_MS: integer(1_000, 50, 60_000).describe(
    "Longest one message's HTML-to-text conversion may run; past it the worker is stopped and the body is the tag-stripped text (body_degraded).",
  ),
  HUB_HTML_BUDGET_MS: integer(5_000, 100, 300_000).describe(
    'Longest all HTML conversions of one tool call may take together, queue wait included; bodies not converted by then are tag-stripped (body_degraded).',
  ),
  HUB_SEND_VERIFY_MAX_MESSAGES: integer(50, 1, 500).describe(
    'Most sent messages email_send reads back (newest first) when it checks whether an uncertain earlier send went out; past it the outcome is reported unknown.',
  ),
  HUB_ADMIN_JWT_SECRET: adminSecret.describe(
    'HS256 secret (at least 32 characters) of admin API tokens; set this or `HUB_ADMIN_JWT_PUBLIC_KEY`, neither turns the admin API off.',
  ),
  HUB_ADMIN_JWT_PUBLIC_KEY: publicKeyPem.describe('RS256 PEM public key of admin API tokens (`\\n` escapes accepted); set this or `HUB_ADMIN_JWT_SECRET`.'),
  HUB_ADMIN_JWT_ISSUER: optionalString.transform((s) => s ?? 'hub-admin').describe('Required `iss` of admin API tokens.'),
  HUB_ADMIN_JWT_AUDIENCE: optionalString.transform((s) => s ?? 'hub-admin-api').describe('Required `aud` of admin API tokens.'),
  HUB_ADMIN_JWT_MAX_TTL_S: integer(30 * 86_400, 60, 366 * 86_400).describe(
    'Longest lifetime (exp - iat, seconds) an admin token may declare; tokens without iat, or claiming more, are refused.',
  ),
  HUB_CONSOLE_SIGN_IN_TTL_S: integer(600, 30, 600).describe(
    'Lifetime (seconds, at most 600) of a one-time admin console sign-in link (`npm run admin-login`).',
  ),
  HUB_CONSOLE_IDLE_TIMEOUT_S: integer(1800, 60, 86_400).describe('An admin console session ends after this many seconds without a request.'),
  HUB_CONSOLE_SESSION_MAX_S: integer(43_200, 300, 7 * 86_400).describe('Absolute lifetime (seconds) of an admin console session, however active.'),
  HUB_CONNECT_LINK_TTL_S: integer(3600, 60, 7 * 86_400).describe('Lifetime (seconds) of a connect link an admin makes (`POST /api/admin/connect-links`).'),
  HUB_SETUP_URL_TTL_S: integer(900, 60, 86_400).describe(
    'Lifetime (seconds) of the connect links the Hub hands to agents as setup_url; shorter than admin links because they travel through agents, transcripts and chats.',
  ),
  HUB_CONNECT_ATTEMPTS_PER_LINK: integer(10, 1, 1000).describe(
    'Sign-in attempts one connect link may have pending at once (each open of the link starts one, valid 10 minutes); more are refused with 429.',
  ),
  HUB_CONNECT_ATTEMPTS_PER_ADDRESS: integer(100, 1, 100_000).describe(
    'Sign-in attempts one client address may have pending at once, across all links; more are refused with 429.',
  ),
  HUB_CONNECT_RETURN_URLS: returnUrlPrefixes.describe(
    "Comma-separated URL prefixes a connect link's `return_url` may point under; unset, the flow ends on the Hub's own page.",
  ),
  HUB_GOOGLE_REDIRECT_URI: httpUrl('http(s)')
    .meta({ defaultText: '`$HUB_PUBLIC_URL/integrations/google/callback`' })
    .describe('The OAuth redirect URI registered with Google, matched exactly.'),
  HUB_TOKEN_REFRESH_SKEW_S: integer(300, 0, 3000).describe('Refresh an access token that expires within this many seconds, before the tool runs.'),
  HUB_REFRESH_LOCK_TTL_MS: integer(15_000, 1000, 120_000).describe('Lifetime of the cross-replica token-refresh lock in Redis.'),
  HUB_CREDENTIAL_CACHE_TTL_MS: integer(5_000, 0, 300_000).describe(
    'In-process cache of credential lookups (`0` = off); refresh, connect and disconnect invalidate it on every replica.',
  ),
  HUB_MCP_ALLOWED_ORIGINS: origins
    .meta({ defaultText: 'the origin of `HUB_PUBLIC_URL`' })
    .describe(
      'Comma-separated browser origins that may call `POST /mcp`; a request carrying any other `Origin` header is refused with 403 (DNS-rebinding protection). Requests without `Origin` (servers, CLIs) are not affected.',
    ),
  HUB_AUDIT: onOff(true).describe(
    'The audit trail: a receipt per execute call and a row per connection event. `off` records none (the retention purge still runs); for measuring its cost, or a Hub whose calls must leave no record.',
  ),
  HUB_AUDIT_PAYLOADS: optionalString
    .pipe(z.enum(['none', 'redacted', 'full']).optional())
    .transform((s) => s ?? 'redacted')
    .describe(
      'What audit receipts keep of inputs and results: `none`, `redacted` (the compact shape: keys, types, string lengths, keyed hashes of the values equality matters for, arrays summarised; message subjects and bodies as length only) or `full`; tokens never, and every receipt has a fixed bound.',
    ),
  HUB_AUDIT_RETENTION_DAYS: integer(30, 1, 3650).describe(
    'Days audit receipts, connection events and webhook deliveries are kept; older rows are purged in small batches.',
  ),
  HUB_AUDIT_BUFFER_MAX: integer(10_000, 100, 1_000_000).describe(
    'Audit rows one replica holds in memory while the database is slow or away; beyond it new rows are dropped (counted, warned).',
  ),
  HUB_AUDIT_FLUSH_MS: integer(250, 10, 60_000).describe('How often queued audit rows are written (a full batch of 200 is written at once).'),
  HUB_AUDIT_RETRY_S: integer(300, 1, 86_400).describe('How long queued audit rows wait out a database outage (retried with backoff) before they are dropped.'),
  HUB_AUDIT_PURGE_INTERVAL_S: integer(3600, 10, 86_400).describe('How often the retention purge runs.'),
  HUB_AUDIT_THREAD: onOff(true).describe(
    'Receipts are redacted, serialised and written by a thread of their own, off the request thread — on PostgreSQL, and on embedded PGlite running on its thread (`off`: on the request thread).',
  ),
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
  HUB_ACCESS_CACHE_TTL_MS: integer(30_000, 1_000, 600_000).describe(
    'Longest a replica trusts its in-memory copy of service keys and policies without re-reading them; changes reach every replica at once through Redis, this bounds staleness when an event is lost.',
  ),
  HUB_CONVERSATION_BUDGET_TTL_S: integer(86_400, 60, 2_592_000).describe(
    "A conversation's tool-call count (policy `max_tool_calls_per_conversation`) is forgotten after this many seconds without a call.",
  ),
  HUB_GOOGLE_PUBLISHING_STATUS: optionalString
    .pipe(z.enum(['production', 'testing']).optional())
    .transform((s) => s ?? 'production')
    .describe(
      'Publishing status of the Hub’s OAuth app in Google Cloud: "testing" tells the Hub that Google ends every grant 7 days after consent, so connections show as expiring before they break.',
    ),
});

type Env = z.infer<typeof envSchema>;

function googleEndpoints(e: Env): GoogleEndpoints {
  const sandbox = e.HUB_GOOGLE_SANDBOX_URL;
  const at = (path: string, real: string) => (sandbox ? new URL(path, sandbox).toString() : real);
  const apiRoot = e.HUB_GOOGLE_API_ROOT_URL ?? sandbox;
  return {
    calendarRootUrl: apiRoot ?? GOOGLE_ENDPOINTS.calendarRootUrl,
    gmailRootUrl: apiRoot ?? GOOGLE_ENDPOINTS.gmailRootUrl,
    authUrl: e.HUB_GOOGLE_AUTH_URL ?? at('/o/oauth2/v2/auth', GOOGLE_ENDPOINTS.authUrl),
    tokenUrl: e.HUB_GOOGLE_TOKEN_URL ?? at('/token', GOOGLE_ENDPOINTS.tokenUrl),
    revokeUrl: e.HUB_GOOGLE_REVOKE_URL ?? at('/revoke', GOOGLE_ENDPOINTS.revokeUrl),
    tokenInfoUrl: e.HUB_GOOGLE_TOKENINFO_URL ?? at('/tokeninfo', GOOGLE_ENDPOINTS.tokenInfoUrl),
    pemCertsUrl: at('/oauth2/v1/certs', GOOGLE_ENDPOINTS.pemCertsUrl),
    jwkCertsUrl: at('/oauth2/v3/certs', GOOGLE_ENDPOINTS.jwkCertsUrl),
  };
}

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  serviceSecrets: string[];
  encryptionKeys: EncryptionKey[];
  database: { kind: 'postgres'; url: string; poolMax: number; queryTimeoutMs: number } | { kind: 'pglite'; dataDir: string; thread: boolean };
  /** Apply pending migrations at start (else only check that none is pending: a separate `migrate` step runs them). */
  migrateOnStart: boolean;
  /** Processes serving on this machine (node:cluster; src/cluster.ts): 1 = this process serves itself. */
  processes: number;
  redisUrl: string | undefined;
  /** Heartbeat and reconnection check of the Redis breaker. */
  redisProbeIntervalMs: number;
  logLevel: (typeof LOG_LEVELS)[number];
  /** How long in-flight calls may finish once the listener has closed; never below the tool deadline. */
  shutdownTimeoutMs: number;
  /** How long readiness fails before the listener closes, so load balancers stop sending first. */
  shutdownGraceMs: number;
  trustProxy: boolean | number | string;
  observability: ObservabilityConfig;
  rateLimit: RateLimitConfig;
  upstream: UpstreamConfig;
  idempotency: { ttlS: number };
  audit: AuditConfig;
  webhooks: WebhookConfig;
  /** What shapes tool results: the longest message body returned (characters; longer is cut, flagged truncated). */
  tools: { maxBodyChars: number; sendVerifyMaxMessages: number };
  /** HTML mail → text in worker threads, within a time budget. */
  html: HtmlConversionConfig;
  admin: AdminAuthConfig;
  console: ConsoleConfig;
  connect: ConnectConfig;
  tokens: TokenLifecycleConfig;
  /** The MCP endpoint: browser origins allowed to call it (its public origin when not configured). */
  mcp: { allowedOrigins: string[] };
  /** Service keys and policies (src/access). */
  access: { cacheTtlMs: number; conversationTtlS: number };
  google: {
    clientId: string | undefined;
    clientSecret: string | undefined;
    endpoints: GoogleEndpoints;
    /** True when the endpoints point at the project's Google sandbox rather than Google. */
    sandbox: boolean;
    /** The OAuth app's publishing status at Google: in "testing" every grant ends 7 days after consent. */
    publishingStatus: 'production' | 'testing';
    /** The HTTP transport under googleapis (src/upstream/google-http.ts), or gaxios' default node-fetch. */
    http: 'lean' | 'node-fetch';
  };
}

export interface ObservabilityConfig {
  /** Prometheus metrics recorded and served. */
  metrics: boolean;
  /** A separate listener for /metrics; undefined = on the API port. */
  metricsPort: number | undefined;
  /** Bearer token /metrics requires; undefined = open (keep the port private). */
  metricsToken: string | undefined;
  connectionsTtlMs: number;
  /** The OTEL_* variables ask for a trace exporter: main.ts starts the OpenTelemetry SDK. */
  tracingSdk: boolean;
}

export interface HtmlConversionConfig {
  /** Worker threads converting HTML. */
  workers: number;
  /** Longest one message's conversion may run. */
  taskTimeoutMs: number;
  /** Longest all conversions of one tool call may take together, waiting included. */
  callBudgetMs: number;
}

export interface RateLimitConfig {
  windowS: number;
  /** Points per window for one customer, across every replica (Redis) — or per replica without Redis. */
  customerPoints: number;
  /** Points per window for one (customer, agent) pair, so one runaway agent cannot starve its siblings. */
  agentPoints: number;
  /** Distinct agent ids one customer may use per window (agent_id is self-asserted: this bounds rotating it). */
  agentsPerCustomer: number;
  /** The longest a charge waits for Redis before the in-memory insurance decides. */
  redisTimeoutMs: number;
  readCost: number;
  writeCost: number;
  /** Per-tool overrides of the read/write cost. */
  toolCosts: Record<string, number>;
  /** How long a refused call's 429 is held before it is sent (a flood's answers come no faster than this per connection). */
  refusalHoldMs: number;
  /** Replicas expected to share the limit: the in-memory insurance limiter (Redis down) allows 1/replicas of it. */
  replicas: number;
}

export interface UpstreamConfig {
  /** The whole tool call, retries and waits included. */
  toolDeadlineMs: number;
  /** One HTTP attempt to Google. */
  attemptTimeoutMs: number;
  maxRetries: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** Consecutive failed calls (5xx, network, timeout; retries included, counted once) that open a connection's circuit. */
  breakerFailures: number;
  breakerHalfOpenMs: number;
  /** The integration-wide circuit: opens on a failure rate measured across many connections, over a minimum volume. */
  globalBreaker: GlobalBreakerConfig;
  gmail: GmailProtectionConfig;
  /** How long a connected account's calendar writes are refused locally after Google's 403 quotaExceeded. */
  calendarQuotaCooldownMs: number;
  /** Replicas sharing the Gmail unit budget: without Redis each replica allows 1/replicas of it. */
  replicas: number;
  /** Longest a Gmail unit charge waits on Redis (HUB_RATE_LIMIT_REDIS_TIMEOUT_MS, as for the Hub's own limits). */
  redisTimeoutMs: number;
}

export interface GlobalBreakerConfig {
  windowMs: number;
  minCalls: number;
  minConnections: number;
  /** 0–1. */
  failureRate: number;
}

export interface GmailProtectionConfig {
  /** Requests in flight to one mailbox from this replica. */
  maxInFlight: number;
  /** Quota units one mailbox may spend per window (all replicas, with Redis). */
  quotaUnits: number;
  quotaWindowS: number;
  /** Per-method overrides of the quota units (`messages.get` → 5). */
  quotaCosts: Record<string, number>;
}

/** The admin API's JWT verification: one algorithm, fixed by which key is configured. None → admin API off. */
export interface AdminAuthConfig {
  key: { algorithm: 'HS256'; secret: string } | { algorithm: 'RS256'; publicKey: string } | null;
  issuer: string;
  audience: string;
  /** Longest `exp - iat` a token may declare (seconds); `iat` is required. */
  maxTtlS: number;
}

/** The admin console's sign-in links and sessions. */
export interface ConsoleConfig {
  signInTtlS: number;
  idleTimeoutS: number;
  sessionMaxS: number;
}

export interface ConnectConfig {
  /** Lifetime of a connect link an admin makes (POST /api/admin/connect-links). */
  linkTtlS: number;
  /** Lifetime of a connect link handed to agents as `setup_url` (errors, status): shorter, it travels further. */
  setupUrlTtlS: number;
  /** Pending sign-in attempts (oauth_states rows) allowed per link, and per client address across links. */
  maxAttemptsPerLink: number;
  maxAttemptsPerAddress: number;
  /** The OAuth redirect URI registered with Google, matched exactly. */
  redirectUri: string;
  /** URL prefixes a connect link's return_url must start with; empty = no redirects, the Hub's own page. */
  returnUrlPrefixes: string[];
}

export interface TokenLifecycleConfig {
  /** Refresh an access token that expires within this many seconds. */
  refreshSkewS: number;
  /** How long a replica may hold the cross-replica refresh lock. */
  refreshLockTtlMs: number;
  /** How long a resolved credential stays cached in-process (0 = always read the database). */
  credentialCacheTtlMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type AdminEnv = Pick<Env, 'HUB_ADMIN_JWT_SECRET' | 'HUB_ADMIN_JWT_PUBLIC_KEY' | 'HUB_ADMIN_JWT_ISSUER' | 'HUB_ADMIN_JWT_AUDIENCE' | 'HUB_ADMIN_JWT_MAX_TTL_S'>;

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

const adminEnvSchema = envSchema.pick({
  HUB_ADMIN_JWT_SECRET: true,
  HUB_ADMIN_JWT_PUBLIC_KEY: true,
  HUB_ADMIN_JWT_ISSUER: true,
  HUB_ADMIN_JWT_AUDIENCE: true,
  HUB_ADMIN_JWT_MAX_TTL_S: true,
  HUB_DATA_DIR: true,
});

/**
 * For `npm run admin-token`: only the admin API's settings, and the data directory where `npm run demo` keeps
 * the secrets it generated. Minting a token needs no database, service secret or encryption key.
 */
export function loadAdminTokenConfig(env: Record<string, string | undefined>): { admin: AdminAuthConfig; dataDir: string } {
  const e = parseEnv(adminEnvSchema, env);
  return { admin: adminAuth(e), dataDir: e.HUB_DATA_DIR };
}

/** For `npm run admin-login`: what a sign-in link is built and signed with (the Hub's public URL, its encryption keys). */
export function loadSignInConfig(env: Record<string, string | undefined>): { publicUrl: string; encryptionKeys: EncryptionKey[]; ttlS: number } {
  const e = parseEnv(envSchema.pick({ HUB_PUBLIC_URL: true, HUB_ENCRYPTION_KEYS: true, HUB_CONSOLE_SIGN_IN_TTL_S: true }), env);
  return { publicUrl: e.HUB_PUBLIC_URL, encryptionKeys: e.HUB_ENCRYPTION_KEYS, ttlS: e.HUB_CONSOLE_SIGN_IN_TTL_S };
}

/**
 * What a production start refuses (NODE_ENV=production, as the image sets it): embedded PGlite, whose data a
 * recreated container loses with every connection in it, and a missing Google OAuth client, without which every
 * `setup_url` ends on "Google is not configured".
 */
function productionProblems(e: Env): string[] {
  if (e.NODE_ENV !== 'production') return [];
  const problems: string[] = [];
  if (!e.DATABASE_URL && !e.HUB_ALLOW_EMBEDDED_DB) {
    problems.push(
      'DATABASE_URL: required with NODE_ENV=production (embedded PGlite lives in the container and is lost when it is recreated); ' +
        'set HUB_ALLOW_EMBEDDED_DB=true to run on PGlite anyway, with HUB_DATA_DIR on a volume',
    );
  }
  for (const name of ['HUB_GOOGLE_CLIENT_ID', 'HUB_GOOGLE_CLIENT_SECRET'] as const) {
    if (!e[name]) problems.push(`${name}: required with NODE_ENV=production (without the Google OAuth client no customer can connect Google)`);
  }
  // Whoever reaches the API (an Ingress, a proxy) would read every tool's traffic and the connection counts.
  if (e.HUB_METRICS && e.HUB_METRICS_PORT === undefined && e.HUB_METRICS_TOKEN === undefined) {
    problems.push(
      'HUB_METRICS_TOKEN: required with NODE_ENV=production while /metrics is served on the API port; set HUB_METRICS_TOKEN (or HUB_METRICS_TOKEN_FILE), ' +
        'or HUB_METRICS_PORT to serve /metrics on a port of its own that only Prometheus reaches, or HUB_METRICS=off',
    );
  }
  return problems;
}

/**
 * Several processes (HUB_PROCESSES) share what one process would keep to itself: the database (embedded PGlite
 * is a single process's files) and, through Redis, limits, idempotency records and connection-cache invalidation.
 */
function processProblems(e: Env): string[] {
  if (e.HUB_PROCESSES === 1) return [];
  const problems: string[] = [];
  if (!e.DATABASE_URL) problems.push(`HUB_PROCESSES: ${e.HUB_PROCESSES} processes need DATABASE_URL (PostgreSQL); embedded PGlite runs in one process only`);
  if (!e.REDIS_URL)
    problems.push(`HUB_PROCESSES: ${e.HUB_PROCESSES} processes need REDIS_URL, which shares limits, idempotency records and connection changes between them`);
  return problems;
}

/** The operator's webhook receiver: signed (a secret is required) and, unless allowed, https on a public host. */
function webhookProblems(e: Env): string[] {
  if (e.HUB_WEBHOOK_URL === undefined) return [];
  const problems: string[] = [];
  if (e.HUB_WEBHOOK_SECRETS.length === 0) problems.push('HUB_WEBHOOK_SECRETS: required with HUB_WEBHOOK_URL (webhooks are always signed)');
  const problem = targetUrlProblem(e.HUB_WEBHOOK_URL, e.HUB_WEBHOOK_ALLOW_PRIVATE);
  if (problem !== null)
    problems.push(`HUB_WEBHOOK_URL: ${problem}${e.HUB_WEBHOOK_ALLOW_PRIVATE ? '' : ' (HUB_WEBHOOK_ALLOW_PRIVATE=true allows http and private addresses)'}`);
  return problems;
}

/**
 * The variables that hold a secret (or one inside them: the password of a database or Redis URL). Each X of them
 * also reads from a file named by X_FILE (Docker and Kubernetes secrets mounted as files), so a secret need not
 * sit in the environment, where child processes, crash reports and `docker inspect` see it. Keys and certificates
 * are included (a PEM is easier in a file), and any variable added later whose name says it is a secret.
 */
const SECRET_VARIABLE = /_(SECRETS?|KEYS?|TOKEN|PASSWORD)$/;
export const isSecretVariable = (name: string): boolean => SECRET_VARIABLE.test(name) || name === 'DATABASE_URL' || name === 'REDIS_URL';

/** The environment with each secret variable X read from X_FILE where that is set; problems name X_FILE, never a value. */
function withSecretFiles(names: string[], env: Record<string, string | undefined>): { env: Record<string, string | undefined>; problems: Map<string, string> } {
  const out = { ...env };
  const problems = new Map<string, string>();
  const set = (v: string | undefined) => v !== undefined && v.trim() !== '';
  for (const name of names.filter(isSecretVariable)) {
    const path = env[`${name}_FILE`];
    if (!set(path)) continue;
    if (set(env[name])) {
      problems.set(name, `${name} and ${name}_FILE are both set: set one of them, not both`);
      continue;
    }
    try {
      // The file's trailing newline (echo, most editors, `kubectl create secret --from-file`) is not part of the secret.
      const value = readFileSync(path!.trim(), 'utf8').replace(/[\r\n]+$/, '');
      if (value.trim() === '') problems.set(name, `${name}_FILE: ${path!.trim()} is empty`);
      else out[name] = value;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
      problems.set(name, `${name}_FILE: cannot read ${path!.trim()} (${code})`);
    }
  }
  return { env: out, problems };
}

/** Parses with one of the schemas; every problem at once, each naming its variable (never echoing a value). */
function parseEnv<S extends z.ZodObject>(schema: S, env: Record<string, string | undefined>): z.output<S> {
  const files = withSecretFiles(Object.keys(schema.shape), env);
  const parsed = schema.safeParse(files.env);
  const problems = [...files.problems.values()];
  if (!parsed.success) {
    for (const i of parsed.error.issues) {
      const name = i.path.join('.');
      if (!files.problems.has(name)) problems.push(`${name || '(environment)'}: ${i.message}`);
    }
  }
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  return parsed.data;
}

/** PostgreSQL when DATABASE_URL is set, embedded PGlite otherwise. */
const databaseOf = (e: Pick<Env, 'DATABASE_URL' | 'HUB_DATA_DIR' | 'HUB_DB_POOL_MAX' | 'HUB_DB_QUERY_TIMEOUT_MS' | 'HUB_PGLITE_THREAD'>): Config['database'] =>
  e.DATABASE_URL
    ? { kind: 'postgres', url: e.DATABASE_URL, poolMax: e.HUB_DB_POOL_MAX, queryTimeoutMs: e.HUB_DB_QUERY_TIMEOUT_MS }
    : { kind: 'pglite', dataDir: e.HUB_DATA_DIR, thread: e.HUB_PGLITE_THREAD };

/** For `npm run migrate` (src/cli/migrate.ts): only the database settings — no secret is needed to migrate. */
export function loadMigrateConfig(env: Record<string, string | undefined>): { database: Config['database']; logLevel: Config['logLevel'] } {
  const e = parseEnv(
    envSchema.pick({ DATABASE_URL: true, HUB_DATA_DIR: true, HUB_DB_POOL_MAX: true, HUB_DB_QUERY_TIMEOUT_MS: true, HUB_PGLITE_THREAD: true, LOG_LEVEL: true }),
    env,
  );
  return { database: databaseOf(e), logLevel: e.LOG_LEVEL };
}

/**
 * A call may run for the whole tool deadline and then needs a moment to answer: a shutdown that cuts
 * connections sooner loses answers (a sent email whose reply never arrives), so it is refused.
 */
function lifecycleTimes(e: Pick<Env, 'HUB_SHUTDOWN_TIMEOUT_MS' | 'HUB_SHUTDOWN_GRACE_MS' | 'HUB_TOOL_DEADLINE_MS'>) {
  const shutdownTimeoutMs = e.HUB_SHUTDOWN_TIMEOUT_MS ?? e.HUB_TOOL_DEADLINE_MS + 2_000;
  if (shutdownTimeoutMs < e.HUB_TOOL_DEADLINE_MS) {
    throw new ConfigError([
      `HUB_SHUTDOWN_TIMEOUT_MS: ${shutdownTimeoutMs} is below HUB_TOOL_DEADLINE_MS (${e.HUB_TOOL_DEADLINE_MS}); a call in flight at shutdown could be cut off — use at least ${e.HUB_TOOL_DEADLINE_MS} (unset: deadline + 2000)`,
    ]);
  }
  return { shutdownTimeoutMs, shutdownGraceMs: e.HUB_SHUTDOWN_GRACE_MS };
}

/** The standard OTEL_* variables ask for a trace exporter (and the SDK is not disabled): tracing costs nothing otherwise. */
function tracingSdkRequested(e: Env): boolean {
  if (e.OTEL_SDK_DISABLED) return false;
  const exporters = (e.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '' && s !== 'none');
  if (exporters.length > 0) return true;
  return e.OTEL_TRACES_EXPORTER === undefined && (e.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined || e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined);
}

/** Parses an environment-like record. Throws ConfigError naming every missing or invalid variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const e = parseEnv(envSchema, env);
  const problems = [...productionProblems(e), ...processProblems(e), ...webhookProblems(e)];
  if (problems.length > 0) throw new ConfigError(problems);
  const admin = adminAuth(e);
  return {
    ...lifecycleTimes(e),
    port: e.HUB_PORT,
    host: e.HUB_HOST,
    publicUrl: e.HUB_PUBLIC_URL,
    mcp: { allowedOrigins: e.HUB_MCP_ALLOWED_ORIGINS.length > 0 ? e.HUB_MCP_ALLOWED_ORIGINS : [new URL(e.HUB_PUBLIC_URL).origin] },
    serviceSecrets: e.HUB_SERVICE_SECRETS,
    encryptionKeys: e.HUB_ENCRYPTION_KEYS,
    database: databaseOf(e),
    migrateOnStart: e.HUB_MIGRATE_ON_START,
    processes: e.HUB_PROCESSES,
    redisUrl: e.REDIS_URL,
    redisProbeIntervalMs: e.HUB_REDIS_PROBE_INTERVAL_MS,
    logLevel: e.LOG_LEVEL,
    trustProxy: e.HUB_TRUST_PROXY,
    observability: {
      metrics: e.HUB_METRICS,
      metricsPort: e.HUB_METRICS_PORT,
      metricsToken: e.HUB_METRICS_TOKEN,
      connectionsTtlMs: e.HUB_METRICS_CONNECTIONS_TTL_S * 1000,
      tracingSdk: tracingSdkRequested(e),
    },
    rateLimit: {
      windowS: e.HUB_RATE_LIMIT_WINDOW_S,
      customerPoints: e.HUB_RATE_LIMIT_CUSTOMER_POINTS,
      agentPoints: e.HUB_RATE_LIMIT_AGENT_POINTS,
      agentsPerCustomer: e.HUB_RATE_LIMIT_AGENTS_PER_CUSTOMER,
      redisTimeoutMs: e.HUB_RATE_LIMIT_REDIS_TIMEOUT_MS,
      readCost: e.HUB_RATE_LIMIT_READ_COST,
      writeCost: e.HUB_RATE_LIMIT_WRITE_COST,
      toolCosts: e.HUB_RATE_LIMIT_TOOL_COSTS,
      refusalHoldMs: e.HUB_RATE_LIMITED_HOLD_MS,
      replicas: e.HUB_REPLICAS * e.HUB_PROCESSES,
    },
    upstream: {
      toolDeadlineMs: e.HUB_TOOL_DEADLINE_MS,
      attemptTimeoutMs: e.HUB_GOOGLE_TIMEOUT_MS,
      maxRetries: e.HUB_GOOGLE_MAX_RETRIES,
      retryBaseMs: e.HUB_GOOGLE_RETRY_BASE_MS,
      retryMaxMs: e.HUB_GOOGLE_RETRY_MAX_MS,
      breakerFailures: e.HUB_BREAKER_FAILURES,
      breakerHalfOpenMs: e.HUB_BREAKER_HALF_OPEN_MS,
      globalBreaker: {
        windowMs: e.HUB_GLOBAL_BREAKER_WINDOW_S * 1000,
        minCalls: e.HUB_GLOBAL_BREAKER_MIN_CALLS,
        minConnections: e.HUB_GLOBAL_BREAKER_MIN_CONNECTIONS,
        failureRate: e.HUB_GLOBAL_BREAKER_FAILURE_PERCENT / 100,
      },
      gmail: {
        maxInFlight: e.HUB_GMAIL_MAX_IN_FLIGHT,
        quotaUnits: e.HUB_GMAIL_QUOTA_UNITS,
        quotaWindowS: e.HUB_GMAIL_QUOTA_WINDOW_S,
        quotaCosts: e.HUB_GMAIL_QUOTA_COSTS,
      },
      calendarQuotaCooldownMs: e.HUB_CALENDAR_QUOTA_COOLDOWN_S * 1000,
      replicas: e.HUB_REPLICAS * e.HUB_PROCESSES,
      redisTimeoutMs: e.HUB_RATE_LIMIT_REDIS_TIMEOUT_MS,
    },
    idempotency: { ttlS: e.HUB_IDEMPOTENCY_TTL_S },
    audit: {
      enabled: e.HUB_AUDIT,
      payloads: e.HUB_AUDIT_PAYLOADS,
      retentionDays: e.HUB_AUDIT_RETENTION_DAYS,
      bufferMax: e.HUB_AUDIT_BUFFER_MAX,
      flushIntervalMs: e.HUB_AUDIT_FLUSH_MS,
      retryForS: e.HUB_AUDIT_RETRY_S,
      purgeIntervalS: e.HUB_AUDIT_PURGE_INTERVAL_S,
      thread: e.HUB_AUDIT_THREAD,
    },
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
    tools: { maxBodyChars: e.HUB_MAX_BODY_CHARS, sendVerifyMaxMessages: e.HUB_SEND_VERIFY_MAX_MESSAGES },
    html: { workers: e.HUB_HTML_WORKERS, taskTimeoutMs: e.HUB_HTML_TIMEOUT_MS, callBudgetMs: e.HUB_HTML_BUDGET_MS },
    admin,
    console: { signInTtlS: e.HUB_CONSOLE_SIGN_IN_TTL_S, idleTimeoutS: e.HUB_CONSOLE_IDLE_TIMEOUT_S, sessionMaxS: e.HUB_CONSOLE_SESSION_MAX_S },
    connect: {
      linkTtlS: e.HUB_CONNECT_LINK_TTL_S,
      setupUrlTtlS: e.HUB_SETUP_URL_TTL_S,
      maxAttemptsPerLink: e.HUB_CONNECT_ATTEMPTS_PER_LINK,
      maxAttemptsPerAddress: e.HUB_CONNECT_ATTEMPTS_PER_ADDRESS,
      redirectUri: e.HUB_GOOGLE_REDIRECT_URI ?? `${e.HUB_PUBLIC_URL}/integrations/google/callback`,
      returnUrlPrefixes: e.HUB_CONNECT_RETURN_URLS,
    },
    tokens: {
      refreshSkewS: e.HUB_TOKEN_REFRESH_SKEW_S,
      refreshLockTtlMs: e.HUB_REFRESH_LOCK_TTL_MS,
      credentialCacheTtlMs: e.HUB_CREDENTIAL_CACHE_TTL_MS,
    },
    access: { cacheTtlMs: e.HUB_ACCESS_CACHE_TTL_MS, conversationTtlS: e.HUB_CONVERSATION_BUDGET_TTL_S },
    google: {
      clientId: e.HUB_GOOGLE_CLIENT_ID,
      clientSecret: e.HUB_GOOGLE_CLIENT_SECRET,
      endpoints: googleEndpoints(e),
      sandbox: e.HUB_GOOGLE_SANDBOX_URL !== undefined,
      publishingStatus: e.HUB_GOOGLE_PUBLISHING_STATUS,
      http: e.HUB_GOOGLE_HTTP,
    },
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

/** `npm run demo`'s one setting of its own; everything else it reads is the Hub's and the sandbox's. */
const demoEnvSchema = z.object({
  DEMO_HOST: optionalString
    .pipe(
      z
        .string()
        .regex(/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/, 'must be a host name or IPv4 address')
        .optional(),
    )
    .transform((s) => s ?? 'localhost')
    .describe(
      "Host name a browser uses to reach `npm run demo`: the Hub's and the sandbox's URLs and every printed link use it, and both listen on loopback only when it is `localhost` or `127.x`, else on every interface.",
    ),
});

export interface DemoConfig {
  /** The name in every URL the demo prints and the browser follows (the Hub, the sandbox's consent page). */
  host: string;
  /** Where the Hub and the sandbox listen: loopback for a local name, every interface otherwise. */
  listenHost: string;
}

export function loadDemoConfig(env: Record<string, string | undefined>): DemoConfig {
  const host = parseEnv(demoEnvSchema, env).DEMO_HOST;
  const local = host.toLowerCase() === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(host);
  return { host, listenHost: local ? '127.0.0.1' : '0.0.0.0' };
}

/**
 * The Hub's and the demo's variables for the README's configuration tables (`npm run docs:config`): src/config-docs.ts
 * lists them with the Google sandbox's, which its package reads itself (packages/google-sandbox/src/config.ts).
 */
export const HUB_CONFIG_SCHEMA = { title: 'The Hub', schema: envSchema } as const;
export const DEMO_CONFIG_SCHEMA = { title: 'The demo (`npm run demo`)', schema: demoEnvSchema } as const;
