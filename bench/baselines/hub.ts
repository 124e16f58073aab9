import { loadConfig, processEnv } from '../../src/config';
import { startHub } from '../../src/server';

/** The real Hub, configured from the environment the bench passes, reporting its port when listening. */
startHub(loadConfig(processEnv())).then(
  (hub) => process.send?.({ port: hub.port }),
  (err: unknown) => {
    process.stderr.write(`hub failed to start: ${String(err)}\n`);
    process.exit(1);
  },
);
