import { loadConfigOrExit } from '../../src/config';
import { exitOnStartFailure, startHub } from '../../src/server';

/** The real Hub, configured from the environment the bench passes, reporting its port when listening. */
startHub(loadConfigOrExit()).then((hub) => process.send?.({ port: hub.port }), exitOnStartFailure('hub failed to start'));
