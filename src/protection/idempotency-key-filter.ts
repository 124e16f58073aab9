import type { Logger } from '../logger';
import type { Db } from '../store/db';

/**
 * Which idempotency keys the embedded database may hold, so that look() — the first thing a create with a
 * request_id does — needs no query for a key the store has never seen, which is nearly every first attempt. A
 * PGlite statement crosses to PGlite's thread and back (~0.9 ms of latency, a few hundred µs of CPU on this VM);
 * a filter lookup is seven bit tests.
 *
 * Sound only for a store with one writer: embedded PGlite, whose data directory one process holds (pglite.ts).
 * Every key this store writes is added before its statement is sent; the keys already there are read once, in
 * pages, on first use (until then, and while a rebuild runs, every key "may" be held). A Bloom filter: "no" is
 * certain, "maybe" costs the query (about 1 % of new keys when full). Keys of expired or deleted records stay in
 * it until it is rebuilt, which happens when the keys added outgrow its capacity. And if it ever did miss a
 * record, the write it fronts is one Google deduplicates (idempotency.ts): a retry would meet Google's 409
 * rather than write twice.
 */

export interface KeyFilter {
  /** False only when the store certainly holds no record under `key`. */
  mayHold(key: string): boolean;
  /** Before a statement that may write a record under `key`. */
  add(key: string): void;
}

const HASHES = 7; // with 10 bits a key: ~0.8 % false "maybe"
const BITS_PER_KEY = 10;
const MIN_CAPACITY = 65_536; // 80 KiB
const PAGE = 2_000;

/** Bit positions from the key's own SHA-256 hex digest (storageKey: `idem:` + 64 hex): 7 × 32 independent bits. */
function positions(key: string, bits: number): number[] | null {
  const hex = key.slice(key.indexOf(':') + 1);
  if (!/^[0-9a-f]{64}$/.test(hex)) return null;
  return Array.from({ length: HASHES }, (_, i) => Number.parseInt(hex.slice(i * 8, i * 8 + 8), 16) % bits);
}

class Bloom {
  readonly bits: Uint8Array;
  count = 0;
  constructor(readonly capacity: number) {
    this.bits = new Uint8Array(Math.ceil((capacity * BITS_PER_KEY) / 8));
  }
  add(key: string): void {
    const at = positions(key, this.bits.length * 8);
    if (!at) return;
    for (const p of at) this.bits[p >> 3]! |= 1 << (p & 7);
    this.count++;
  }
  has(key: string): boolean {
    const at = positions(key, this.bits.length * 8);
    return at === null || at.every((p) => (this.bits[p >> 3]! & (1 << (p & 7))) !== 0);
  }
}

export function createKeyFilter(db: Db, logger: Logger): KeyFilter {
  let filter: Bloom | null = null; // trusted only once `ready`
  let ready = false;
  let loading = false;
  // Keys added while a load runs, whatever the pages it reads happen to see: they go into the new filter too.
  let addedDuringLoad: string[] = [];

  /** Reads every live key into a new filter, in pages (the primary key's order); keys added meanwhile go in too. */
  async function load(): Promise<void> {
    loading = true;
    ready = false;
    addedDuringLoad = [];
    try {
      const [{ n }] = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM idempotency_records WHERE expires_at > now()')) as [{ n: number }];
      filter = new Bloom(Math.max(MIN_CAPACITY, n * 2));
      let after = '';
      for (;;) {
        const page = await db.query<{ key: string }>('SELECT key FROM idempotency_records WHERE key > $1 AND expires_at > now() ORDER BY key LIMIT ' + PAGE, [
          after,
        ]);
        for (const row of page) filter.add(row.key);
        if (page.length < PAGE) break;
        after = page[page.length - 1]!.key;
      }
      for (const key of addedDuringLoad) filter.add(key);
      ready = true;
    } catch (err) {
      filter = null; // every key "may" be held; the next use tries again
      logger.warn({ err }, 'could not read the idempotency keys; looking each one up meanwhile');
    } finally {
      loading = false;
      addedDuringLoad = [];
    }
  }

  return {
    mayHold(key) {
      if (ready && filter) return filter.has(key);
      if (!loading) void load();
      return true;
    },
    add(key) {
      if (loading) addedDuringLoad.push(key);
      if (!filter) return; // not built yet: a load running now takes the key from addedDuringLoad, a later one reads its record
      filter.add(key);
      if (filter.count > filter.capacity && !loading) void load(); // too full to be useful: rebuild from what lives
    },
  };
}
