import './require-node'; // first: refuses an unsupported Node before anything else loads
import cluster from 'node:cluster';
import { loadConfigOrExit } from './config';

/**
 * Production entry point: configuration from the environment, then serve until SIGTERM/SIGINT — in this process,
 * or with HUB_PROCESSES > 1 in that many forked ones (src/cluster.ts; each of them runs this file as a worker).
 * When the OTEL_* variables ask for a trace exporter, the OpenTelemetry SDK starts first in each serving process —
 * before the server's modules load `pg` and `ioredis`, which its instrumentations patch as they are required.
 * Otherwise none of it is loaded at all. Modules are required (not imported) below: the order of loading is the
 * point here, and this file compiles to CommonJS.
 */
async function main() {
  const config = loadConfigOrExit();
  if (config.processes > 1 && cluster.isPrimary) {
    // The primary only migrates and supervises: it serves nothing, so it traces nothing.
    const { runCluster } = require('./cluster') as typeof import('./cluster');
    const { exitOnStartFailure } = require('./server') as typeof import('./server');
    await runCluster(config).catch(exitOnStartFailure('hub failed to start'));
    return;
  }
  const sdk = config.observability.tracingSdk
    ? (require('./observability/otel-sdk') as typeof import('./observability/otel-sdk')).startOtelSdk('hub')
    : undefined;
  const { trace } = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const { exitOnStartFailure, startHub, stopOnSignals } = require('./server') as typeof import('./server');
  await startHub(config, sdk ? { tracer: trace.getTracer('hub'), onClose: () => sdk.shutdown() } : {}).then(
    stopOnSignals,
    exitOnStartFailure('hub failed to start'),
  );
}

void main();
