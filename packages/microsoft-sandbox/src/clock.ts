/** Sandbox time: the wall clock plus an offset the control API can move forward (token and grant lifetimes, propagation delays). */
export interface SandboxClock {
  now(): number;
  advance(ms: number): void;
}

/**
 * Never goes backwards: a wall clock stepped back (NTP on a loaded VM) would otherwise hide an event whose
 * propagation delay had passed, or revive an expired token — Microsoft's own time does not step back for a client.
 */
export function createClock(start?: number): SandboxClock {
  let offset = start === undefined ? 0 : start - Date.now();
  // The wall clock's highest reading: what steps back is the wall clock, not an offset moved on purpose.
  let wall = -Infinity;
  return {
    now: () => {
      const t = Date.now();
      if (t > wall) wall = t;
      return wall + offset;
    },
    advance: (ms) => {
      offset += ms;
    },
  };
}
