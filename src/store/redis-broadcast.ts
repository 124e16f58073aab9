import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { z } from 'zod';
import type { Logger } from '../logger';

/**
 * "Something changed" between replicas over one Redis pub/sub channel, so each drops its cached copy at once
 * instead of after its cache TTL. Best effort by design: a message lost while Redis is down only means the TTL
 * bounds staleness again. Everything that arrives is validated (another process, or anyone with Redis access,
 * wrote it), and a replica ignores its own messages (it has applied the change already).
 */
export interface Broadcast<T> {
  /** Tells the other replicas (fire and forget; a failure is logged, never thrown). */
  publish(change: T): void;
  /** What to run when another replica reports a change. */
  onRemoteChange(handler: (change: T) => void): void;
  close(): Promise<void>;
}

export interface BroadcastSpec<T, M> {
  channel: string;
  /** For log lines: "credential events". */
  what: string;
  /** What staleness falls back to while Redis is away, for the log line. */
  fallback: string;
  /** The wire message without its `origin`; strict, ids only. */
  schema: z.ZodType<M & { origin: string }>;
  encode(change: T): M;
  decode(message: M): T;
}

export async function openBroadcast<T, M>(redis: Redis, logger: Logger, spec: BroadcastSpec<T, M>): Promise<Broadcast<T>> {
  const origin = randomUUID();
  let handler: ((change: T) => void) | undefined;
  // Subscribing needs its own connection; it may queue SUBSCRIBE until connected and re-subscribes on reconnect.
  const subscriber = redis.duplicate({ enableOfflineQueue: true, lazyConnect: true });
  subscriber.on('error', (err) => logger.debug({ err }, `${spec.what}: redis subscriber error`));
  subscriber.on('message', (channel: string, raw: string) => {
    if (channel !== spec.channel) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = undefined;
    }
    const message = spec.schema.safeParse(parsed);
    if (!message.success) return logger.warn(`${spec.what}: ignored a malformed message`);
    if (message.data.origin === origin) return; // our own change: already applied locally
    handler?.(spec.decode(message.data));
  });
  try {
    await subscriber.connect();
    await subscriber.subscribe(spec.channel);
  } catch (err) {
    // Redis down at start: keep trying in the background (ioredis reconnects and re-subscribes).
    logger.warn({ err }, `${spec.what}: not subscribed yet; ${spec.fallback} until Redis answers`);
    void subscriber.subscribe(spec.channel).catch(() => {});
  }
  return {
    publish(change) {
      redis
        .publish(spec.channel, JSON.stringify({ origin, ...spec.encode(change) }))
        .catch((err: unknown) => logger.warn({ err }, `${spec.what}: publish failed; other replicas rely on their cache TTL`));
    },
    onRemoteChange(h) {
      handler = h;
    },
    async close() {
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
