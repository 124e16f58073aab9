import type { IncomingHttpHeaders } from 'node:http';
import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  context,
  defaultTextMapGetter,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/**
 * Tracing through the OpenTelemetry API. Spans are made only when tracing is on — the Node SDK was started
 * (OTEL_* variables asked for an exporter, see otel-sdk.ts) or a tracer was handed in (tests) — so the default
 * costs one branch per span site. Off, the trace id an agent sent in its W3C `traceparent` is still read, so the
 * access line and `metadata.trace_id` tie the Hub's answer to the agent's trace.
 *
 * Child spans nest through the active context (AsyncLocalStorage, installed by the SDK), as the PostgreSQL and
 * Redis instrumentations expect.
 */

export interface CallTrace {
  /** The trace this call belongs to: the agent's (traceparent), or a new one when tracing is on; else undefined. */
  traceId: string | undefined;
  /** Runs the call inside its span's context (tracing on), or just runs it. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Attributes of the finished call, then the span ends. */
  end(attributes: Attributes, failed: boolean): void;
}

export interface Tracing {
  enabled: boolean;
  /** The execute call's span, continuing the agent's `traceparent` when it sent a valid one. */
  startCall(headers: IncomingHttpHeaders): CallTrace;
  /** Runs `fn` inside a child span of the active one; `fn` may add attributes to it. Off: runs `fn` with no span. */
  inSpan<T>(name: string, fn: (span: Span | undefined) => Promise<T>, attributes?: Attributes): Promise<T>;
}

// W3C Trace Context §3.2: version 00, 32 hex trace-id and 16 hex parent-id (neither all zeros), 2 hex flags.
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** The trace id of a valid `traceparent` header; undefined for anything else. */
export function traceIdOf(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const m = TRACEPARENT.exec(header.trim());
  if (!m || m[1] === ZERO_TRACE || m[2] === ZERO_SPAN) return undefined;
  return m[1];
}

const noSpan: CallTrace['end'] = () => {};
const justRun: CallTrace['run'] = (fn) => fn();

export const tracingOff: Tracing = {
  enabled: false,
  startCall: (headers) => ({ traceId: traceIdOf(headers.traceparent), run: justRun, end: noSpan }),
  inSpan: (_name, fn) => fn(undefined),
};

export function createTracing(tracer: Tracer | undefined): Tracing {
  if (!tracer) return tracingOff;
  const propagator = new W3CTraceContextPropagator();
  return {
    enabled: true,
    startCall(headers) {
      const parent: Context = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
      const span = tracer.startSpan('hub.execute', { kind: SpanKind.SERVER }, parent);
      const active = trace.setSpan(parent, span);
      const traceId = span.spanContext().traceId;
      return {
        traceId: traceId === ZERO_TRACE ? undefined : traceId,
        run: (fn) => context.with(active, fn),
        end(attributes, failed) {
          span.setAttributes(attributes);
          if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
    inSpan(name, fn, attributes) {
      return tracer.startActiveSpan(name, attributes ? { attributes } : {}, async (span) => {
        try {
          return await fn(span);
        } catch (err) {
          span.recordException(err as Error);
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw err;
        } finally {
          span.end();
        }
      });
    },
  };
}

/** Marks a span failed with the Hub's error code (expected failures are values, not exceptions). */
export function spanOutcome(span: Span | undefined, outcome: { ok: true } | { ok: false; error: { code: string } }): void {
  if (!span) return;
  span.setAttribute('hub.outcome', outcome.ok ? 'ok' : outcome.error.code);
  if (!outcome.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error.code });
}
