/**
 * The Lua scripts behind a mailbox's shared in-flight slots (shared-mailbox-slots.ts). Per mailbox, three keys under
 * one hash tag (one slot of a Redis Cluster, as a script's keys must be):
 * - `leases`: a sorted set of lease tokens scored by when each lease ends (Redis ms) — the slots taken;
 * - `queue`: a sorted set of waiting tickets scored by arrival (Redis µs) — the order waiters are served in;
 * - `tickets`: the same tickets scored by when each ends unless renewed — a waiter renews its ticket at every try, so
 *   the ticket of a replica that died (or lost Redis) leaves the queue instead of blocking it.
 * A waiter's ticket is its lease token. Everything is timed by Redis' TIME, so replicas agree whatever their clocks.
 * When slots are free and tickets wait, a script announces the tickets first in line, as many as there are free
 * slots (PUBLISH of their tokens), so only the waiters a slot is owed wake up — one per freed slot, not every waiter
 * of the mailbox. Each script is O(log n) in the mailbox's leases and waiters, plus the expired entries it drops and
 * the tickets it names (at most the limit).
 */

/** The keys of a mailbox's slots, from its hashed id (keys name no one). */
export const slotKeys = (slot: string) => ['leases', 'queue', 'tickets'].map((part) => `hub:mailbox-slots:{${slot}}:${part}`);

/** KEYS: leases, queue, tickets. Drops ended leases and lapsed tickets; `free` is the limit (ARGV[1]) less the leases. */
const PRELUDE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local lapsed = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 100)
if #lapsed > 0 then
  redis.call('ZREM', KEYS[2], unpack(lapsed))
  redis.call('ZREM', KEYS[3], unpack(lapsed))
end
local function announce(free, channel)
  if free <= 0 then return end
  local first = redis.call('ZRANGE', KEYS[2], 0, free - 1)
  if #first > 0 then redis.call('PUBLISH', channel, table.concat(first, ' ')) end
end
`;

/**
 * KEYS: leases, queue, tickets. ARGV: limit, lease ms, ticket ms, token, channel. Returns 1 when the token holds a
 * slot now: it was among the first `free` tickets in the queue, or a newcomer while fewer than `free` wait. Otherwise
 * the token waits (queued at the back on its first try) with its ticket renewed, and 0 is returned. Having dropped
 * lapsed tickets, it announces the waiters they were blocking.
 */
export const ACQUIRE_SCRIPT = `${PRELUDE}
local lease, ttl, token = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local free = limit - redis.call('ZCARD', KEYS[1])
local place = redis.call('ZRANK', KEYS[2], token)
local queued = place ~= false
if not queued then place = redis.call('ZCARD', KEYS[2]) end
if place < free then
  if queued then
    redis.call('ZREM', KEYS[2], token)
    redis.call('ZREM', KEYS[3], token)
  end
  redis.call('ZADD', KEYS[1], now + lease, token)
  redis.call('PEXPIRE', KEYS[1], lease)
  if #lapsed > 0 then announce(free - 1, ARGV[5]) end
  return 1
end
if not queued then redis.call('ZADD', KEYS[2], tonumber(t[1]) * 1000000 + tonumber(t[2]), token) end
redis.call('ZADD', KEYS[3], now + ttl, token)
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('PEXPIRE', KEYS[3], ttl)
if #lapsed > 0 then announce(free, ARGV[5]) end
return 0
`;

/** KEYS: leases, queue, tickets. ARGV: limit, token, channel. Frees the token's slot and announces who gets it. */
export const RELEASE_SCRIPT = `${PRELUDE}
redis.call('ZREM', KEYS[1], ARGV[2])
announce(limit - redis.call('ZCARD', KEYS[1]), ARGV[3])
return 1
`;

/**
 * KEYS: leases, queue, tickets. ARGV: limit, token, channel. A waiter gives up (its deadline fired): its ticket leaves
 * the queue, and if a slot is free the waiters now first in line are announced.
 */
export const LEAVE_SCRIPT = `${PRELUDE}
redis.call('ZREM', KEYS[3], ARGV[2])
if redis.call('ZREM', KEYS[2], ARGV[2]) == 1 then announce(limit - redis.call('ZCARD', KEYS[1]), ARGV[3]) end
return 1
`;
