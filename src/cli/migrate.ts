import '../require-node'; // first: refuses an unsupported Node before anything else loads
import { loadMigrateConfig, processEnv } from '../config';
import { createLogger } from '../logger';
import { exitOnStartFailure } from '../server';
import { migrate } from '../store/migrate';
import { openDatabase } from '../store/open';

/**
 * `npm run migrate` (in the image: `node dist/src/cli/migrate.js`): applies pending migrations and exits — the
 * step deploy/compose.yaml and the Kubernetes Job run once before the replicas start (they set
 * HUB_MIGRATE_ON_START=false, so serving processes never run DDL). It needs only the database settings. Safe to
 * run again, and concurrently: migrations apply in one transaction behind an advisory lock.
 */
export async function runMigrations(env: Record<string, string | undefined>, print: (line: string) => void): Promise<string[]> {
  const config = loadMigrateConfig(env);
  const logger = createLogger({ level: config.logLevel === 'info' ? 'warn' : config.logLevel, secrets: [] });
  const db = await openDatabase(config.database, logger);
  try {
    const applied = await migrate(db, logger);
    print(applied.length > 0 ? `applied ${applied.length} migration(s): ${applied.join(', ')}` : 'database schema is current; nothing to apply');
    return applied;
  } finally {
    await db.close();
    logger.flush();
  }
}

if (require.main === module) {
  runMigrations(processEnv(), (line) => process.stdout.write(`${line}\n`)).then(() => process.exit(0), exitOnStartFailure('migrate failed'));
}
