import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import {
  type BeginResult,
  type IdempotencyStore,
  type Lease,
  type StoredOutcome,
  checkLeaseMs,
  checkTtlS,
  retryAfterSeconds,
  storageKey,
} from './idempotency-store';

/**
 * Idempotency records in Redis, shared by every replica. Each decision is one Lua script, so check-and-set is
 * atomic. The value is JSON: `{v, fp, state: 'running', owner, leaseUntil}` while the tool runs, then
 * `{v, fp, state: 'done', outcome}`. Leases are measured on the Redis clock (TIME), never a replica's.
 * A running record is kept for lease + ttl (not just the lease): after a crash the same fingerprint can take
 * over, while other inputs under the same key are still refused. Redis errors propagate to the caller.
 */

// KEYS[1] record; ARGV fingerprint, new owner, lease ms, ttl ms.
// Returns {'acquired'} | {'replay', raw value} | {'in_progress', lease ms left} | {'mismatch'}.
const BEGIN = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local fp, owner, leaseMs, ttlMs = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local raw = redis.call('GET', KEYS[1])
if raw then
  local ok, rec = pcall(cjson.decode, raw)
  if not ok or type(rec) ~= 'table' then return redis.error_reply('corrupt idempotency record') end
  if rec.fp ~= fp then return {'mismatch'} end
  if rec.state == 'done' then return {'replay', raw} end
  local left = (tonumber(rec.leaseUntil) or 0) - now
  if left > 0 then return {'in_progress', math.ceil(left)} end
end
redis.call('SET', KEYS[1], cjson.encode({v = 1, fp = fp, state = 'running', owner = owner, leaseUntil = now + leaseMs}),
  'PX', leaseMs + ttlMs)
return {'acquired'}
`;

// KEYS[1] record; ARGV owner, outcome JSON, ttl ms. Stores only while this owner still holds the record. The
// outcome is spliced in as text, never decoded and re-encoded (cjson would turn an empty array into {}).
const COMPLETE = `
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local ok, rec = pcall(cjson.decode, raw)
if not ok or type(rec) ~= 'table' or rec.state ~= 'running' or rec.owner ~= ARGV[1] then return 0 end
local done = '{"v":1,"fp":' .. cjson.encode(rec.fp) .. ',"state":"done","outcome":' .. ARGV[2] .. '}'
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

type BeginReply = [string, (string | number)?];

interface IdempotencyCommands {
  hubIdemBegin(key: string, fp: string, owner: string, leaseMs: number, ttlMs: number): Promise<BeginReply>;
  hubIdemComplete(key: string, owner: string, outcomeJson: string, ttlMs: number): Promise<number>;
  hubIdemRelease(key: string, owner: string): Promise<number>;
}

export function createRedisIdempotencyStore(
  redis: Redis,
  /** `available`: the Redis breaker's verdict (src/store/redis-health.ts); false → begin() fails at once, no waiting. */
  options: { ttlS: number; prefix?: string; available?: () => boolean },
): IdempotencyStore {
  const ttlMs = checkTtlS(options.ttlS) * 1000;
  const prefix = options.prefix ?? 'hub:';
  // defineCommand sends EVALSHA and falls back to EVAL once per script; redefining (a second store) is harmless.
  redis.defineCommand('hubIdemBegin', { numberOfKeys: 1, lua: BEGIN });
  redis.defineCommand('hubIdemComplete', { numberOfKeys: 1, lua: COMPLETE });
  redis.defineCommand('hubIdemRelease', { numberOfKeys: 1, lua: RELEASE });
  const commands = redis as unknown as IdempotencyCommands;

  return {
    kind: 'redis',

    async begin(key, fingerprint, leaseMs): Promise<BeginResult> {
      if (options.available?.() === false) throw new Error('redis is not answering (breaker open)');
      const lease: Lease = { key: storageKey(key), owner: randomUUID() };
      const [state, detail] = await commands.hubIdemBegin(prefix + lease.key, fingerprint, lease.owner, checkLeaseMs(leaseMs), ttlMs);
      switch (state) {
        case 'acquired':
          return { state, lease };
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
      await commands.hubIdemComplete(prefix + lease.key, lease.owner, JSON.stringify(outcome), ttlMs);
    },

    async release(lease) {
      await commands.hubIdemRelease(prefix + lease.key, lease.owner);
    },
  };
}
