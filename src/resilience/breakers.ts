import type { GlobalBreakerConfig } from '../config';
import type { Logger } from '../logger';

/**
 * Two kinds of circuit, so one customer's failures never stop the others:
 *
 * - **per connection**: `failures` calls in a row of one connection failed (5xx, network, timeout) → that
 *   connection's calls fail fast for `halfOpenMs`, then one test call decides. A message that always answers 500,
 *   a mailbox the vendor cannot serve: only its owner notices.
 * - **per integration** (vendor-wide): the failure rate over a sliding window, opened only when the window holds
 *   at least `minCalls` calls, at least `failureRate` of them failed, and the failures came from at least
 *   `minConnections` distinct connections — a real outage, not one tenant's bad luck.
 *
 * A call counts once, whatever its retries did: its final outcome is what is recorded. Calls that never reached
 * the vendor (refused locally, deadline passed while waiting) record nothing. Per process, like the Hub's other
 * in-memory protections; memory is bounded (closed connection circuits are forgotten, at most MAX_TRACKED kept).
 */

export type CircuitStateName = 'closed' | 'open' | 'half_open';
export type CircuitScope = 'connection' | 'integration';
export type CallOutcome = 'success' | 'failure' | 'none';

export interface BreakerSettings extends GlobalBreakerConfig {
  /** Consecutive failed calls that open one connection's circuit. */
  failures: number;
  halfOpenMs: number;
}

/** Admission of one call; hand it back to `record` exactly once. */
export interface Ticket {
  integration: string;
  connection: string;
  globalProbe: boolean;
  connectionProbe: boolean;
}

export type Admission = { ok: true; ticket: Ticket } | { ok: false; scope: CircuitScope; openForMs: number };

export interface Breakers {
  admit(integration: string, connection: string): Admission;
  record(ticket: Ticket, outcome: CallOutcome): void;
  /** The integration-wide circuit's state. */
  state(integration: string): CircuitStateName;
  connectionState(integration: string, connection: string): CircuitStateName;
}

interface Circuit {
  state: CircuitStateName;
  openedAt: number;
  probing: boolean;
}

interface ConnectionCircuit extends Circuit {
  failures: number;
}

/** One second of an integration's calls. `failing` holds at most minConnections ids: enough to tell "at least that many". */
interface Bucket {
  second: number;
  calls: number;
  failures: number;
  failing: Set<string>;
}

interface IntegrationCircuit extends Circuit {
  buckets: Bucket[];
}

const MAX_TRACKED = 10_000;

export function createBreakers(settings: BreakerSettings, logger: Logger, now: () => number): Breakers {
  const integrations = new Map<string, IntegrationCircuit>();
  const connections = new Map<string, ConnectionCircuit>();
  const windowS = Math.max(1, Math.round(settings.windowMs / 1000));

  const integrationCircuit = (id: string): IntegrationCircuit => {
    let circuit = integrations.get(id);
    if (!circuit) {
      circuit = { state: 'closed', openedAt: 0, probing: false, buckets: [] };
      integrations.set(id, circuit);
    }
    return circuit;
  };
  const connectionKey = (integration: string, connection: string) => `${integration}\u0000${connection}`;

  const changed = (fields: Record<string, unknown>, state: CircuitStateName) => {
    if (state === 'closed') logger.info({ ...fields, state }, 'circuit breaker state changed');
    else logger.warn({ ...fields, state }, 'circuit breaker state changed');
  };

  /** Open circuits let one test call through once halfOpenMs has passed; undefined = admitted (probe or closed). */
  const gate = (circuit: Circuit, fields: Record<string, unknown>): number | undefined => {
    if (circuit.state === 'closed') return undefined;
    const waited = now() - circuit.openedAt;
    if (circuit.state === 'open' && waited >= settings.halfOpenMs) {
      circuit.state = 'half_open';
      changed(fields, 'half_open');
    }
    if (circuit.state === 'half_open' && !circuit.probing) {
      circuit.probing = true;
      return undefined;
    }
    return Math.max(0, circuit.openedAt + settings.halfOpenMs - now());
  };

  const open = (circuit: Circuit, fields: Record<string, unknown>) => {
    circuit.state = 'open';
    circuit.openedAt = now();
    circuit.probing = false;
    changed(fields, 'open');
  };

  const windowTotals = (circuit: IntegrationCircuit) => {
    const current = Math.floor(now() / 1000);
    let calls = 0;
    let failures = 0;
    const failing = new Set<string>();
    for (const b of circuit.buckets) {
      if (!b || b.second <= current - windowS) continue; // a slot never used, or older than the window
      calls += b.calls;
      failures += b.failures;
      for (const id of b.failing) if (failing.size < settings.minConnections) failing.add(id);
    }
    return { calls, failures, connections: failing.size };
  };

  const countInWindow = (circuit: IntegrationCircuit, connection: string, failed: boolean) => {
    const second = Math.floor(now() / 1000);
    const slot = second % windowS;
    let bucket = circuit.buckets[slot];
    if (!bucket || bucket.second !== second) {
      bucket = { second, calls: 0, failures: 0, failing: new Set() };
      circuit.buckets[slot] = bucket;
    }
    bucket.calls++;
    if (failed) {
      bucket.failures++;
      if (bucket.failing.size < settings.minConnections) bucket.failing.add(connection);
    }
  };

  const recordIntegration = (ticket: Ticket, outcome: CallOutcome) => {
    const circuit = integrationCircuit(ticket.integration);
    const fields = { integration: ticket.integration, scope: 'integration' };
    if (ticket.globalProbe) {
      circuit.probing = false;
      if (outcome === 'success') {
        circuit.state = 'closed';
        circuit.buckets = [];
        changed(fields, 'closed');
      } else if (outcome === 'failure') open(circuit, fields);
      return;
    }
    if (outcome === 'none' || circuit.state !== 'closed') return;
    countInWindow(circuit, ticket.connection, outcome === 'failure');
    if (outcome !== 'failure') return;
    const totals = windowTotals(circuit);
    if (totals.calls >= settings.minCalls && totals.failures >= totals.calls * settings.failureRate && totals.connections >= settings.minConnections) {
      logger.warn(
        { integration: ticket.integration, calls: totals.calls, failures: totals.failures, window_s: windowS },
        'integration-wide failure rate: opening the integration circuit',
      );
      open(circuit, fields);
    }
  };

  const recordConnection = (ticket: Ticket, outcome: CallOutcome) => {
    const key = connectionKey(ticket.integration, ticket.connection);
    const circuit = connections.get(key);
    const fields = { integration: ticket.integration, scope: 'connection', connection_id: ticket.connection };
    if (ticket.connectionProbe && circuit) {
      circuit.probing = false;
      if (outcome === 'success') {
        connections.delete(key);
        changed(fields, 'closed');
      } else if (outcome === 'failure') open(circuit, fields);
      return;
    }
    if (outcome === 'success') {
      if (circuit?.state === 'closed') connections.delete(key); // a success ends the run of failures
      return;
    }
    if (outcome === 'none') return;
    if (circuit && circuit.state !== 'closed') return; // a call admitted before the circuit opened
    const tracked = circuit ?? { state: 'closed' as const, openedAt: 0, probing: false, failures: 0 };
    tracked.failures++;
    if (!circuit) {
      if (connections.size >= MAX_TRACKED) connections.delete(connections.keys().next().value!);
      connections.set(key, tracked);
    }
    if (tracked.failures >= settings.failures) open(tracked, fields);
  };

  return {
    admit(integration, connection) {
      const global = integrationCircuit(integration);
      const globalWait = gate(global, { integration, scope: 'integration' });
      if (globalWait !== undefined) return { ok: false, scope: 'integration', openForMs: globalWait };
      const globalProbe = global.state === 'half_open';
      const circuit = connections.get(connectionKey(integration, connection));
      const connectionWait = circuit ? gate(circuit, { integration, scope: 'connection', connection_id: connection }) : undefined;
      if (connectionWait !== undefined) {
        if (globalProbe) global.probing = false; // the test call did not happen: let the next one be it
        return { ok: false, scope: 'connection', openForMs: connectionWait };
      }
      return { ok: true, ticket: { integration, connection, globalProbe, connectionProbe: circuit?.state === 'half_open' } };
    },
    record(ticket, outcome) {
      recordConnection(ticket, outcome);
      recordIntegration(ticket, outcome);
    },
    state: (integration) => integrationCircuit(integration).state,
    connectionState: (integration, connection) => connections.get(connectionKey(integration, connection))?.state ?? 'closed',
  };
}
