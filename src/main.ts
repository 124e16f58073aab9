import './require-node'; // first: refuses an unsupported Node before anything else loads
import { loadConfigOrExit } from './config';
import { exitOnStartFailure, startHub, stopOnSignals } from './server';

/** Production entry point: configuration from the environment, then serve until SIGTERM/SIGINT. */
startHub(loadConfigOrExit()).then(stopOnSignals, exitOnStartFailure('hub failed to start'));
