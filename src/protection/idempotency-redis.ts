import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import {
  type BeginResult,
  type EarlierAttempt,
  type IdempotencyStore,
  type Lease,
  type Found,
  type StoredOutcome,
  checkLeaseMs,
  checkTtlS,
  retryAfterSeconds,
  storageKey,
} from './idempotency-store';

/**
 * Idempotency records in Redis, shared by every replica. Each decision is one Lua script, so check-and-set is
 * atomic. The value is JSON: `{v, fp, state: 'running', owner, leaseUntil, since}` while the tool runs, then
 * `{v, fp, state: 'done', outcome}`. Leases are measured on the Redis clock (TIME), never a replica's.
 * A running record is kept for lease + ttl (not just the lease): after a crash the same fingerprint can take
 * over, while other inputs under the same key are still refused. `since` (the first attempt's start) survives
 * take-overs, so the new holder knows how far back to look for an earlier write. Redis errors propagate.
 *
 * A Redis that restarts empty (no persistence, FLUSHALL, failover to a replica that missed writes) forgets
 * records without a trace. An epoch key, written the first time a begin finds none, makes that visible: while
 * the epoch is younger than `resetSuspectMs`, every acquisition reports `earlier: store_reset` (an attempt up to
 * `resetSuspectMs` before the reset may have written). A first start looks the same, and costs the same check.
 */

// KEYS[1] record, KEYS[2] epoch; ARGV fingerprint, new owner, lease ms, ttl ms.
// Returns {'acquired', 'taken_over' | '', since ms, epoch ms, now ms} | {'replay', raw value} |
// {'in_progress', lease ms left} | {'mismatch'}.
const BEGIN = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local fp, owner, leaseMs, ttlMs = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local epoch = tonumber(redis.call('GET', KEYS[2]))
if not epoch then
  epoch = now
  redis.call('SET', KEYS[2], now)
end
local raw = redis.call('GET', KEYS[1])
local earlier, since = '', now
if raw then
  local ok, rec = pcall(cjson.decode, raw)
  if not ok or type(rec) ~= 'table' then return redis.error_reply('corrupt idempotency record') end
  if rec.fp ~= fp then return {'mismatch'} end
  if rec.state == 'done' then return {'replay', raw} end
  local left = (tonumber(rec.leaseUntil) or 0) - now
  if left > 0 then return {'in_progress', math.ceil(left)} end
  earlier = 'taken_over'
  since = tonumber(rec.since) or now - leaseMs - ttlMs
end
redis.call('SET', KEYS[1], cjson.encode({v = 1, fp = fp, state = 'running', owner = owner, leaseUntil = now + leaseMs, since = since}),
  'PX', leaseMs + ttlMs)
return {'acquired', earlier, tostring(since), tostring(epoch), tostring(now)}
`;

// KEYS[1] record; ARGV owner, outcome JSON, ttl ms, fingerprint. Stores while this owner holds the record, and
// re-creates a record the store lost (the write happened); never touches another owner's. The outcome is spliced
// in as text, never decoded and re-encoded (cjson would turn an empty array into {}).
// Returns 1 stored, 0 superseded.
const COMPLETE = `
local raw = redis.call('GET', KEYS[1])
local fp = ARGV[4]
if raw then
  local ok, rec = pcall(cjson.decode, raw)
  if not ok or type(rec) ~= 'table' or rec.state ~= 'running' or rec.owner ~= ARGV[1] then return 0 end
  fp = rec.fp
end
local done = '{"v":1,"fp":' .. cjson.encode(fp) .. ',"state":"done","outcome":' .. ARGV[2] .. '}'
redis.call('SET', KEYS[1], done, 'PX', ARGV[3])
return 1
`;

// KEYS[1] record; ARGV owner. Deletes only while this owner still holds the record.
const RELEASE = `
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local ok, rec = pcall(cjson.decode, raw)
if not ok or type(rec) ~= 'table' or rec.state ~= 'running' or rec.owner ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
`;

// KEYS[1] record; ARGV owner. Ends this owner's lease now, keeping the record (and its expiry) for a take-over.
const ABANDON = `
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local ok, rec = pcall(cjson.decode, raw)
if not ok or type(rec) ~= 'table' or rec.state ~= 'running' or rec.owner ~= ARGV[1] then return 0 end
rec.leaseUntil = 0
redis.call('SET', KEYS[1], cjson.encode(rec), 'KEEPTTL')
return 1
`;

// KEYS[1] record. Reads it, writing nothing; the lease is measured on the Redis clock.
// Returns {'none'} | {'done', raw value} | {'running', raw value, lease ms left}.
const LOOK = `
local raw = redis.call('GET', KEYS[1])
if not raw then return {'none'} end
local ok, rec = pcall(cjson.decode, raw)
if not ok or type(rec) ~= 'table' then return redis.error_reply('corrupt idempotency record') end
if rec.state == 'done' then return {'done', raw} end
local t = redis.call('TIME')
return {'running', raw, (tonumber(rec.leaseUntil) or 0) - (tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))}
`;

// KEYS[1] record; ARGV fingerprint, outcome JSON, ttl ms. Records an outcome run without a lease, unless the key
// holds a finished record, another fingerprint's, or a lease still running. Returns 1 stored, 0 left as it was.
const RECORD = `
local raw = redis.call('GET', KEYS[1])
if raw then
  local ok, rec = pcall(cjson.decode, raw)
  if not ok or type(rec) ~= 'table' or rec.state ~= 'running' or rec.fp ~= ARGV[1] then return 0 end
  local t = redis.call('TIME')
  if (tonumber(rec.leaseUntil) or 0) > tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) then return 0 end
end
redis.call('SET', KEYS[1], '{"v":1,"fp":' .. cjson.encode(ARGV[1]) .. ',"state":"done","outcome":' .. ARGV[2] .. '}', 'PX', ARGV[3])
return 1
`;

type BeginReply = [string, (string | number)?, string?, string?, string?];

interface IdempotencyCommands {
  hubIdemBegin(key: string, epochKey: string, fp: string, owner: string, leaseMs: number, ttlMs: number): Promise<BeginReply>;
  hubIdemComplete(key: string, owner: string, outcomeJson: string, ttlMs: number, fp: string): Promise<number>;
  hubIdemRelease(key: string, owner: string): Promise<number>;
  hubIdemAbandon(key: string, owner: string): Promise<number>;
  hubIdemLook(key: string): Promise<[string, string?, number?]>;
}

/** How long after Redis lost its records (or first started) acquisitions are treated as possibly repeated. */
export const RESET_SUSPECT_MS = 10 * 60_000;

export function createRedisIdempotencyStore(
  redis: Redis,
  /** `available`: the Redis breaker's verdict (src/store/redis-health.ts); false → begin() fails at once, no waiting. */
  options: { ttlS: number; prefix?: string; resetSuspectMs?: number; available?: () => boolean },
): IdempotencyStore {
  const ttlMs = checkTtlS(options.ttlS) * 1000;
  const prefix = options.prefix ?? 'hub:';
  const epochKey = `${prefix}idem-epoch`;
  const resetSuspectMs = options.resetSuspectMs ?? RESET_SUSPECT_MS;
  // defineCommand sends EVALSHA and falls back to EVAL once per script; redefining (a second store) is harmless.
  redis.defineCommand('hubIdemBegin', { numberOfKeys: 2, lua: BEGIN });
  redis.defineCommand('hubIdemComplete', { numberOfKeys: 1, lua: COMPLETE });
  redis.defineCommand('hubIdemRelease', { numberOfKeys: 1, lua: RELEASE });
  redis.defineCommand('hubIdemAbandon', { numberOfKeys: 1, lua: ABANDON });
  redis.defineCommand('hubIdemLook', { numberOfKeys: 1, lua: LOOK });
  redis.defineCommand('hubIdemRecord', { numberOfKeys: 1, lua: RECORD });
  const commands = redis as unknown as IdempotencyCommands;

  const earlierAttempt = (takenOver: boolean, since: number, epoch: number, now: number): EarlierAttempt | null => {
    if (takenOver) return { reason: 'taken_over', since };
    // Records written before the epoch may be gone, and this key's could be one of them. Retries come soon after
    // the attempt they repeat, so only attempts up to the same window before the reset are looked for.
    return now - epoch < resetSuspectMs ? { reason: 'store_reset', since: epoch - resetSuspectMs } : null;
  };

  return {
    kind: 'redis',

    async begin(key, fingerprint, leaseMs): Promise<BeginResult> {
      if (options.available?.() === false) throw new Error('redis is not answering (breaker open)');
      const lease: Lease = { key: storageKey(key), owner: randomUUID(), fingerprint };
      const [state, detail, since, epoch, now] = await commands.hubIdemBegin(
        prefix + lease.key,
        epochKey,
        fingerprint,
        lease.owner,
        checkLeaseMs(leaseMs),
        ttlMs,
      );
      switch (state) {
        case 'acquired':
          return { state, lease, earlier: earlierAttempt(detail === 'taken_over', Number(since), Number(epoch), Number(now)) };
        case 'replay':
          return { state, outcome: (JSON.parse(String(detail)) as { outcome: StoredOutcome }).outcome };
        case 'in_progress':
          return { state, retryAfterS: retryAfterSeconds(Number(detail)) };
        case 'mismatch':
          return { state };
        default:
          throw new Error(`unexpected idempotency reply from redis: ${String(state)}`);
      }
    },

    async complete(lease, outcome) {
      const stored = await commands.hubIdemComplete(prefix + lease.key, lease.owner, JSON.stringify(outcome), ttlMs, lease.fingerprint);
      return stored === 1 ? 'stored' : 'superseded';
    },

    async release(lease) {
      await commands.hubIdemRelease(prefix + lease.key, lease.owner);
    },

    async abandon(lease) {
      await commands.hubIdemAbandon(prefix + lease.key, lease.owner);
    },

    async look(key): Promise<Found> {
      if (options.available?.() === false) throw new Error('redis is not answering (breaker open)');
      const [state, raw, leaseLeftMs] = await commands.hubIdemLook(prefix + storageKey(key));
      if (state === 'none') return null;
      const record = JSON.parse(String(raw)) as { fp: string; outcome?: StoredOutcome };
      switch (state) {
        case 'done':
          return { state, fingerprint: record.fp, outcome: record.outcome ?? {} };
        case 'running':
          return { state, fingerprint: record.fp, leaseLeftMs: Number(leaseLeftMs) };
        default:
          throw new Error(`unexpected idempotency reply from redis: ${String(state)}`);
      }
    },

    // One pipeline: every script is written at once and answered in one round trip.
    async recordMany(entries) {
      const pipeline = redis.pipeline() as unknown as { hubIdemRecord(...args: unknown[]): unknown; exec(): Promise<[Error | null, unknown][] | null> };
      for (const { lease, outcome } of entries) pipeline.hubIdemRecord(prefix + lease.key, lease.fingerprint, JSON.stringify(outcome), ttlMs);
      const replies = (await pipeline.exec()) ?? [];
      const failed = replies.find(([err]) => err !== null);
      if (failed) throw failed[0]!;
      return new Set(entries.filter((_, i) => replies[i]?.[1] === 1).map((e) => e.lease.key));
    },
  };
}
