import { z } from 'zod';
import type { ServerEnv } from './server';
import { type EnvOf, integer, onOff, optionalString } from './variables';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export type LogLevel = (typeof LOG_LEVELS)[number];

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

export interface ObservabilitySettings {
  logLevel: LogLevel;
  observability: ObservabilityConfig;
}

export const observabilityVariables = {
  LOG_LEVEL: optionalString
    .pipe(z.enum(LOG_LEVELS).optional())
    .transform((s) => s ?? 'info')
    .describe(`Log level: ${LOG_LEVELS.map((l) => `\`${l}\``).join(', ')}.`),
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
};

export type ObservabilityEnv = EnvOf<typeof observabilityVariables>;

/** The standard OTEL_* variables ask for a trace exporter (and the SDK is not disabled): tracing costs nothing otherwise. */
function tracingSdkRequested(e: ObservabilityEnv): boolean {
  if (e.OTEL_SDK_DISABLED) return false;
  const exporters = (e.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '' && s !== 'none');
  if (exporters.length > 0) return true;
  return e.OTEL_TRACES_EXPORTER === undefined && (e.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined || e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined);
}

/** In production, whoever reaches the API (an Ingress, a proxy) would read every tool's traffic and the connection counts. */
function productionProblems(e: ObservabilityEnv & Pick<ServerEnv, 'NODE_ENV'>): string[] {
  if (e.NODE_ENV !== 'production' || !e.HUB_METRICS || e.HUB_METRICS_PORT !== undefined || e.HUB_METRICS_TOKEN !== undefined) return [];
  return [
    'HUB_METRICS_TOKEN: required with NODE_ENV=production while /metrics is served on the API port; set HUB_METRICS_TOKEN (or HUB_METRICS_TOKEN_FILE), ' +
      'or HUB_METRICS_PORT to serve /metrics on a port of its own that only Prometheus reaches, or HUB_METRICS=off',
  ];
}

export const observabilitySection = {
  variables: observabilityVariables,
  problems: productionProblems,
  load: (e: ObservabilityEnv): ObservabilitySettings => ({
    logLevel: e.LOG_LEVEL,
    observability: {
      metrics: e.HUB_METRICS,
      metricsPort: e.HUB_METRICS_PORT,
      metricsToken: e.HUB_METRICS_TOKEN,
      connectionsTtlMs: e.HUB_METRICS_CONNECTIONS_TTL_S * 1000,
      tracingSdk: tracingSdkRequested(e),
    },
  }),
};
