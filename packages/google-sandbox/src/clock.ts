/** Sandbox time: the wall clock plus an offset the control API can move forward (token expiry, newer_than:). */
export interface SandboxClock {
  now(): number;
  advance(ms: number): void;
}

export function createClock(start?: number): SandboxClock {
  let offset = start === undefined ? 0 : start - Date.now();
  return {
    now: () => Date.now() + offset,
    advance: (ms) => {
      offset += ms;
    },
  };
}
