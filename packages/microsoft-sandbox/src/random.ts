import { randomBytes } from 'node:crypto';

/**
 * The sandbox's only source of randomness. Seeded, it is a deterministic PRNG (same seed, same ids, tokens
 * and fault draws, so a failing test replays exactly); unseeded, it draws from the OS's CSPRNG.
 */
export interface SandboxRandom {
  /** A float in [0, 1). */
  next(): number;
  /** `length` characters drawn from `alphabet`. */
  string(length: number, alphabet: string): string;
  hex(length: number): string;
}

export const ALPHABETS = {
  hex: '0123456789abcdef',
  /** Base32hex, lowercase. */
  base32hex: '0123456789abcdefghijklmnopqrstuv',
  base64url: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
  alnum: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
} as const;

/** mulberry32: tiny, fast, good enough statistical quality for ids and fault draws. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function cryptoFloat(): number {
  return randomBytes(4).readUInt32BE(0) / 4294967296;
}

export function createRandom(seed?: number): SandboxRandom {
  const next = seed === undefined ? cryptoFloat : mulberry32(seed);
  const string = (length: number, alphabet: string) => {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(next() * alphabet.length)];
    return out;
  };
  return { next, string, hex: (length) => string(length, ALPHABETS.hex) };
}
