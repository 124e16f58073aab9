import { NodeSDK } from '@opentelemetry/sdk-node';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';

/**
 * The OpenTelemetry Node SDK, started only when the standard OTEL_* variables ask for a trace exporter
 * (src/config/observability.ts decides: `tracingSdk`). The SDK reads its exporter, endpoint, headers, sampler and resource from
 * those variables itself (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/).
 *
 * Must run before `pg` and `ioredis` are first loaded: the instrumentations patch them as they are required,
 * which is why main.ts loads the server only after this. Only traces: the Hub's metrics are Prometheus'
 * (metrics.ts), and logs stay pino's JSON lines — no OTel metric reader or log processor is made.
 */
export function startOtelSdk(serviceName: string): { shutdown(): Promise<void> } {
  const sdk = new NodeSDK({
    serviceName,
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      // Statements without their values (enhancedDatabaseReporting off): values carry sealed tokens and ids.
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
      // The command name only: keys and arguments hold customer ids and stored answers.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
    ],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
