/**
 * The Lua scripts behind a mailbox's shared in-flight slots (shared-mailbox-slots.ts). Per mailbox, three keys under
 * one hash tag (one slot of a Redis Cluster, as a script's keys must be):
 * - `leases`: a sorted set of lease tokens scored by when each lease ends (Redis ms) — the slots taken;
 * - `queue`: a sorted set of waiting tickets scored by arrival (Redis µs) — the order waiters are served in;
 * - `tickets`: the same tickets scored by when each ends unless renewed — a waiter renews its ticket at every try, so
 *   the ticket of a replica that died (or lost Redis) leaves the queue instead of blocking it.
 * Everything is timed by Redis' TIME, so replicas agree whatever their clocks. Each script is O(log n) in the
 * mailbox's leases and waiters (plus the expired tickets it drops, at most 100 a call).
 */

/** The keys of a mailbox's slots, from its hashed id (keys name no one). */
export const slotKeys = (slot: string) => ['leases', 'queue', 'tickets'].map((part) => `hub:mailbox-slots:{${slot}}:${part}`);

/**
 * KEYS: leases, queue, tickets. ARGV: limit, lease ms, ticket ms, token, channel, slot. Returns 1 when the token
 * holds a slot now: it was among the first `free` waiters in the queue, or a newcomer while fewer than `free` wait.
 * Otherwise the token waits (queued at the back on its first try) with its ticket renewed, and 0 is returned.
 * Having dropped dead tickets, it wakes the waiters they blocked (PUBLISH) if slots are still free.
 */
export const ACQUIRE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit, lease, ttl, token = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local dead = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 100)
if #dead > 0 then
  redis.call('ZREM', KEYS[2], unpack(dead))
  redis.call('ZREM', KEYS[3], unpack(dead))
end
local free = limit - redis.call('ZCARD', KEYS[1])
local place = redis.call('ZRANK', KEYS[2], token)
local queued = place ~= false
if not queued then place = redis.call('ZCARD', KEYS[2]) end
local taken = 0
if place < free then
  taken = 1
  if queued then
    redis.call('ZREM', KEYS[2], token)
    redis.call('ZREM', KEYS[3], token)
  end
  redis.call('ZADD', KEYS[1], now + lease, token)
  redis.call('PEXPIRE', KEYS[1], lease)
else
  if not queued then redis.call('ZADD', KEYS[2], tonumber(t[1]) * 1000000 + tonumber(t[2]), token) end
  redis.call('ZADD', KEYS[3], now + ttl, token)
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('PEXPIRE', KEYS[3], ttl)
end
if #dead > 0 and free > taken and redis.call('ZCARD', KEYS[2]) > 0 then redis.call('PUBLISH', ARGV[5], ARGV[6]) end
return taken
`;

/** KEYS: leases, queue. ARGV: token, channel, slot. Frees the token's slot; wakes the waiters, if any. */
export const RELEASE_SCRIPT = `
redis.call('ZREM', KEYS[1], ARGV[1])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PUBLISH', ARGV[2], ARGV[3]) end
return 1
`;

/**
 * KEYS: leases, queue, tickets. ARGV: token, limit, channel, slot. A waiter gives up (its deadline fired): its
 * ticket leaves the queue. If a slot is free, the waiters behind it may now be first: they are woken.
 */
export const LEAVE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREM', KEYS[3], ARGV[1])
if redis.call('ZREM', KEYS[2], ARGV[1]) == 1 and redis.call('EXISTS', KEYS[2]) == 1
  and redis.call('ZCOUNT', KEYS[1], string.format('(%.0f', now), '+inf') < tonumber(ARGV[2]) then
  redis.call('PUBLISH', ARGV[3], ARGV[4])
end
return 1
`;
