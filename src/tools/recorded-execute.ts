import type { IncomingHttpHeaders } from 'node:http';
import type { Audit } from '../audit/trail';
import { type VendorOp, MAX_OPS_PER_RECEIPT } from '../audit/receipts';
import type { ServicePrincipal } from '../access/service-keys';
import { type ExecuteDeps, type Execution, executeTool } from './execute';

export interface RecordedExecuteDeps extends ExecuteDeps {
  /** The audit trail; absent in tests that build the route alone. */
  audit?: Audit;
}

export interface RecordedExecution {
  execution: Execution;
  /** The trace this call belongs to (the agent's traceparent, or the Hub's span when tracing is on). */
  traceId: string | undefined;
  /**
   * After the answer is written: the call's metrics, the end of its span and its receipt — none of them awaited,
   * so nothing here slows or fails the call.
   */
  finish(startedAtMs: number): void;
}

/**
 * One tool call as every door runs it — POST /execute and MCP's tools/call alike: the execute use case inside the
 * call's span (continuing the agent's traceparent), with each vendor attempt (Google's or Graph's) noted for the receipt; then, once
 * the door has answered, `finish` records the call (count and duration by tool and outcome, replays, the span's
 * attributes, the audit receipt). One place, so no door can skip the audit trail or the metrics.
 */
export async function executeRecorded(
  deps: RecordedExecuteDeps,
  body: unknown,
  ids: { reqId: string; fallbackRequestId: string; principal?: ServicePrincipal | undefined },
  headers: IncomingHttpHeaders,
): Promise<RecordedExecution> {
  const { metrics, tracing, audit } = deps;
  const call = tracing.startCall(headers);
  const ops: VendorOp[] = [];
  let opsOmitted = 0;
  const onVendorAttempt = audit
    ? (op: VendorOp) => {
        if (ops.length < MAX_OPS_PER_RECEIPT) ops.push(op);
        else opsOmitted++;
      }
    : undefined;
  const { principal, ...rest } = ids;
  const execution = await call.run(() =>
    executeTool(deps, body, { ...rest, ...(principal ? { principal } : {}), ...(onVendorAttempt ? { onVendorAttempt } : {}) }),
  );
  const version = execution.version?.version ?? null;
  return {
    execution,
    traceId: call.traceId,
    finish(startedAtMs) {
      const durationMs = performance.now() - startedAtMs;
      const outcome = execution.ok ? 'ok' : execution.error.code;
      const tool = execution.tool ?? '';
      const replay = execution.replay ?? false;
      metrics.toolCall(tool, outcome, durationMs / 1000);
      if (replay) metrics.idempotentReplay(tool);
      if (tracing.enabled) {
        call.end(
          {
            'hub.tool': tool,
            ...(version ? { 'hub.tool.version': version } : {}),
            'hub.outcome': outcome,
            'hub.api_calls': execution.apiCalls,
            'hub.idempotent_replay': replay,
          },
          !execution.ok,
        );
      }
      if (audit) {
        const endedAt = Date.now();
        // Only the facts: the call_id's HMAC and the redaction are the receipt writer's (its own thread).
        audit.recordCall({
          body,
          execution,
          version,
          startedAt: endedAt - durationMs,
          endedAt,
          durationMs,
          ops,
          opsOmitted,
          traceId: call.traceId ?? null,
          principal,
        });
      }
    },
  };
}
