import { randomBytes } from 'node:crypto';
import { type Config, loadConfig } from '../../src/config';

/** Two live service secrets (rotation) and two encryption keys, fixed so tests can reason about them. */
export const SECRET_A = 'test-secret-A-0123456789abcdef0123456789abcdef';
export const SECRET_B = 'test-secret-B-fedcba9876543210fedcba9876543210';
export const KEY_1 = randomBytes(32).toString('base64');
export const KEY_2 = randomBytes(32).toString('base64');
export const PUBLIC_URL = 'https://hub.test.example';
/** HS256 key of the admin API in tests (test/helpers/admin.ts mints tokens with it). */
export const ADMIN_JWT_SECRET = 'test-admin-jwt-secret-0123456789abcdef0123456789';

export function testEnv(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    HUB_PORT: '0',
    HUB_HOST: '127.0.0.1',
    HUB_PUBLIC_URL: PUBLIC_URL,
    HUB_SERVICE_SECRETS: `${SECRET_A},${SECRET_B}`,
    HUB_ENCRYPTION_KEYS: `k1:${KEY_1}`,
    HUB_DATA_DIR: 'memory://',
    LOG_LEVEL: 'info',
    HUB_SHUTDOWN_GRACE_MS: '0', // tests that close a Hub do not wait for a load balancer
    HUB_RATE_LIMITED_HOLD_MS: '0', // suites that provoke 429s answer at once; the hold has a test of its own
    HUB_ADMIN_JWT_SECRET: ADMIN_JWT_SECRET,
    ...overrides,
  };
}

export const testConfig = (overrides: Record<string, string | undefined> = {}): Config => loadConfig(testEnv(overrides));

/** Services the suites run against. In CI they must be there: a missing service fails the run, never skips. */
export function services(): { databaseUrl: string | undefined; redisUrl: string | undefined } {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const redisUrl = process.env.REDIS_URL || undefined;
  if (process.env.CI === 'true' && (!databaseUrl || !redisUrl)) {
    throw new Error('CI=true: DATABASE_URL and REDIS_URL must be set; the PostgreSQL and Redis suites never skip in CI');
  }
  return { databaseUrl, redisUrl: redisUrl && workerRedisUrl(redisUrl) };
}

/**
 * Test files run in parallel workers: each worker gets a Redis database of its own (worker N: database N, after
 * the one REDIS_URL names), so one file's limits, idempotency records and locks never meet another's keys.
 * PostgreSQL needs no such step: every test database is a schema of its own (db.ts). Pub/sub channels are
 * shared by all Redis databases; what travels on them names its customer, and customers are per test.
 */
function workerRedisUrl(base: string): string {
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  const url = new URL(base);
  const first = Number(url.pathname.slice(1) || '0');
  url.pathname = `/${(first + worker) % 16}`; // Redis' default `databases 16`
  return url.toString();
}

/** The run's migrated PGlite tarball (test/setup/pglite-template.ts), when the global setup made one. */
export const pgliteTemplate = (): string | undefined => process.env.HUB_TEST_PGLITE_TEMPLATE || undefined;
