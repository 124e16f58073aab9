import { type HubApp, createApp } from '../../src/app';
import { BUILT_IN_TOOLS } from '../../src/tools';
import type { AnyTool } from '../../src/tools/types';
import type { Redis } from 'ioredis';
import type { Tracer } from '@opentelemetry/api';
import type { Db } from '../../src/store/db';
import type { CredentialEvents } from '../../src/integrations/credential-events';
import type { AccessEvents } from '../../src/access/access-events';
import { type DriverKind, type TestDb, openTestDb, preferredDriver } from './db';
import { testConfig } from './env';
import { type CapturedLogs, captureLogs } from './logs';
import { TEST_TOOLS } from './tools';

export interface TestHub extends HubApp {
  logs: CapturedLogs;
  testDb: TestDb;
  close(): Promise<void>;
}

/** The real app on a fresh database, with the built-in tools plus the test-only ones, and readable logs. */
export async function buildTestHub(
  options: {
    driver?: DriverKind;
    tools?: readonly AnyTool[];
    env?: Record<string, string | undefined>;
    redis?: Redis;
    db?: Db;
    credentialEvents?: CredentialEvents;
    accessEvents?: AccessEvents;
    /** The tools' clock (ms since the epoch). */
    now?: () => number;
    /** Spans go here (an in-memory exporter's provider); absent = tracing off, as by default. */
    tracer?: Tracer;
    /** null: a build without the console's browser files. */
    consoleAssets?: null;
  } = {},
): Promise<TestHub> {
  const logs = captureLogs();
  const testDb: TestDb = options.db
    ? { db: options.db, url: undefined, drop: () => options.db!.close() }
    : await openTestDb(options.driver ?? preferredDriver());
  const hub = createApp({
    config: testConfig(options.env),
    logger: logs.logger,
    db: testDb.db,
    redis: options.redis ?? null,
    tools: options.tools ?? [...BUILT_IN_TOOLS, ...TEST_TOOLS],
    ...(options.credentialEvents ? { credentialEvents: options.credentialEvents } : {}),
    ...(options.accessEvents ? { accessEvents: options.accessEvents } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.tracer ? { tracer: options.tracer } : {}),
    ...(options.consoleAssets === null ? { consoleAssets: null } : {}),
  });
  await hub.audit.ready().catch(() => {}); // as startHub does: call ids from the first call on
  return {
    ...hub,
    logs,
    testDb,
    close: async () => {
      await hub.html.close();
      await hub.webhooks.close();
      await hub.audit.close();
      await hub.access.close();
      await testDb.drop();
    },
  };
}

/**
 * Hub settings for a suite whose Hub talks to a Microsoft sandbox (test/helpers/microsoft.ts): Graph there, and
 * attempt timeouts with room for a busy machine (the sandbox shares the test's process). Merge with the suite's other
 * settings (sandboxHubEnv for Google).
 */
export const microsoftGraphEnv = (graphUrl: string): Record<string, string> => ({
  HUB_MICROSOFT_GRAPH_URL: graphUrl,
  HUB_MICROSOFT_TIMEOUT_MS: '5000',
});
