import { type KeyObject, createHmac } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';

/**
 * The deterministic `call_id`: hash(tool@version, normalised input, sequence). The sequence is the
 * call's request_id — what an agent repeats when it retries the same call — so a retry and its idempotent replay
 * share the call_id (retries are grouped), while calls without a request_id get the Hub's per-request id and
 * thus a call_id of their own.
 *
 * Normalised input: canonical JSON of the inputs (object keys sorted at every depth), so `{a,b}` and `{b,a}` hash
 * the same. Keyed with the Hub's `audit-key` (hub-secrets.ts): the id travels into logs and admin answers, and
 * an unkeyed hash of a short input (an address, a yes/no) could be reversed by trying candidates.
 * Each part is length-prefixed, so no two different triples share an HMAC input. 128 bits, hex.
 */
/** `key` as a KeyObject made once: a raw Buffer key builds a new one inside every createHmac (~10 µs vs ~2 µs). */
export function callIdOf(key: KeyObject | Buffer, parts: { tool: string | null; version: string | null; inputs: unknown; requestId: string }): string {
  const tool = `${parts.tool ?? ''}@${parts.version ?? ''}`;
  const inputs = canonicalJson(parts.inputs);
  // One string, one update: the same bytes as updating part by part, with one call into OpenSSL instead of seven.
  const message = `hub-call-v1\n${Buffer.byteLength(tool)}:${tool}\n${Buffer.byteLength(inputs)}:${inputs}\n${Buffer.byteLength(parts.requestId)}:${parts.requestId}`;
  return createHmac('sha256', key).update(message).digest('hex').slice(0, 32);
}

/**
 * Values a normalised input holds at most. A tool's valid inputs are far smaller (its schema bounds them); a body
 * refused for its shape can carry 30,000 unknown keys, whose sorted serialisation cost ~7 ms of CPU per hostile
 * request. Beyond the bound the input is normalised to a marker with its size class, so the call_id stays
 * deterministic (a retry of the same oversized body still shares it) at a bounded cost.
 */
export const MAX_CANONICAL_VALUES = 2_000;

/** Keys sorted at every depth; undefined (absent inputs) becomes null; oversized inputs become a marker. */
export function canonicalJson(value: unknown): string {
  if (valuesWithin(value, MAX_CANONICAL_VALUES) < 0) return '"‹input over 2000 values›"';
  return stringify(value ?? null) ?? 'null';
}

/** What is left of `budget` after counting the values in `value`; negative as soon as it runs out (early exit). */
export function valuesWithin(value: unknown, budget: number): number {
  if (--budget < 0 || value === null || typeof value !== 'object') return budget;
  if (Array.isArray(value)) {
    for (const item of value) if ((budget = valuesWithin(item, budget)) < 0) return budget;
    return budget;
  }
  for (const k in value) {
    if (!Object.hasOwn(value, k)) continue;
    if ((budget = valuesWithin((value as Record<string, unknown>)[k], budget)) < 0) return budget;
  }
  return budget;
}
