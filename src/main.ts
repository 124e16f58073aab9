import { ConfigError, loadConfig, processEnv } from './config';
import { startHub } from './server';

/** Production entry point: configuration from the environment, then serve until SIGTERM/SIGINT. */
async function main() {
  let config;
  try {
    config = loadConfig(processEnv());
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const hub = await startHub(config);
  const stop = (signal: string) => {
    hub.logger.info({ signal }, 'shutting down');
    hub.close().then(
      () => process.exit(0),
      (err: unknown) => {
        hub.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`hub failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
