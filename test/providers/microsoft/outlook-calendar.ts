import type { CalendarPort } from '../../../src/core/calendar';
import { createGraphCalendar } from '../../../src/providers/microsoft/calendar';
import type { RecentWrites } from '../../../src/core/recent-writes';
import type { FactCache } from '../../../src/providers/microsoft/calendar-graph';
import { createMemoryRecentWrites } from '../../../src/store/recent-writes-memory';
import { createToolCache } from '../../../src/tools/tool-cache';
import { GRAPH_SCOPES_ALL, type MicrosoftWorld, startMicrosoftWorld } from '../../helpers/microsoft';

/** The Outlook calendar suites' world per test, and the adapter of one sandbox account as a tool call would build it. */

/**
 * A fresh sandbox world (the demo tenant) for each test, handed to `use`; after the test, the sandbox must have seen
 * no request that breaks Graph's contract. `now` sets the demo tenant's clock; `instant` turns Outlook's new-event
 * and delivery delays off, for suites that are not about them.
 */
export function useOutlookWorld(use: (world: MicrosoftWorld) => void, options: { now?: Date; instant?: boolean } = {}): void {
  let world: MicrosoftWorld | undefined;
  beforeEach(async () => {
    world = await startMicrosoftWorld(options.now ? { now: options.now } : {});
    if (options.instant) await world.control('PUT', '/consistency', { new_event_delay_ms: 0, delivery_delay_ms: 0 });
    use(world);
  });
  afterEach(async () => {
    expect(world!.sandbox.world.violations).toEqual([]);
    await world!.close();
  });
}

/** What the calls of one Hub process share: its facts cache and its memory of recent writes. */
export interface HubMemory {
  cache: FactCache;
  recent: RecentWrites;
}

export const hubMemory = (): HubMemory => ({ cache: createToolCache(), recent: createMemoryRecentWrites() });

export interface OutlookCalendar {
  port: CalendarPort;
  /** Pass it to another adapter to make a call of the same Hub; without it, an adapter is another Hub's. */
  memory: HubMemory;
  /** Graph requests made so far. */
  attempts: () => number;
  warnings: unknown[];
}

export function outlookCalendar(
  world: MicrosoftWorld,
  upn: string,
  options: { memory?: HubMemory; now?: () => number; deadlineMs?: number; accountEmail?: string | null } = {},
): OutlookCalendar {
  const memory = options.memory ?? hubMemory();
  let attempts = 0;
  const warnings: unknown[] = [];
  const port = createGraphCalendar({
    call: world.callFor(upn, GRAPH_SCOPES_ALL, () => attempts++),
    graphUrl: world.graphUrl,
    ...memory,
    connection: { credentialId: `credential-${upn}`, accountEmail: options.accountEmail === undefined ? upn : options.accountEmail, scopes: GRAPH_SCOPES_ALL },
    deadline: AbortSignal.timeout(options.deadlineMs ?? 25_000),
    // Graph's clock is the sandbox's: a test that moves it moves the Hub's view of "now" with it.
    now: options.now ?? (() => world.sandbox.world.clock.now()),
    logger: { warn: (...args: unknown[]) => void warnings.push(args) },
  });
  return { port, memory, attempts: () => attempts, warnings };
}

/** The sandbox's events of one account whose subject is `subject` (what Outlook holds, not what the adapter says). */
export function eventsTitled(world: MicrosoftWorld, upn: string, subject: string) {
  const person = [...world.sandbox.world.people.values()].find((p) => p.userPrincipalName === upn)!;
  return world.sandbox.world.mailboxes.get(person.id)!.events.filter((e) => e.subject === subject);
}

/** Graph requests the sandbox received for `operation` so far. */
export const requestsFor = (world: MicrosoftWorld, operation: string) => world.sandbox.world.requestLog.filter((r) => r.operation === operation);
