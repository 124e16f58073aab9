import type { AnyTool, ToolStatus } from './types';

/**
 * Tool version syntax: `name`, `name@1`, `name@1.2` or `name@1.2.0`. A spec picks the highest
 * matching version that is active; when every match is deprecated, the highest deprecated one (it still runs);
 * when every match is blocked, that blocked version (the caller is told so rather than "not found").
 */

const SEMVER = /^(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})$/;
const PREFIX = /^(0|[1-9]\d{0,5})(?:\.(0|[1-9]\d{0,5})(?:\.(0|[1-9]\d{0,5}))?)?$/;

export type Semver = readonly [number, number, number];

export function parseSemver(version: string): Semver | undefined {
  const m = SEMVER.exec(version);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** Newest first. */
export function compareDesc(a: Semver, b: Semver): number {
  return b[0] - a[0] || b[1] - a[1] || b[2] - a[2];
}

export interface ToolSpec {
  name: string;
  /** The numeric components given after `@` (1–3 of them); empty = any version. */
  prefix: number[];
  /** False when something followed `@` that is not 1–3 dot-separated numbers: it matches no version. */
  wellFormed: boolean;
}

export function parseToolSpec(spec: string): ToolSpec {
  const at = spec.indexOf('@');
  if (at < 0) return { name: spec, prefix: [], wellFormed: true };
  const m = PREFIX.exec(spec.slice(at + 1));
  const prefix = m ? [m[1], m[2], m[3]].filter((p) => p !== undefined).map(Number) : [];
  return { name: spec.slice(0, at), prefix, wellFormed: m !== null };
}

export const statusOf = (tool: AnyTool): ToolStatus => tool.lifecycle?.status ?? 'active';

const RANK: Record<ToolStatus, number> = { active: 0, deprecated: 1, blocked: 2 };

/** A registered version with what resolution compares, computed once at start. */
export interface VersionEntry {
  tool: AnyTool;
  semver: Semver;
  rank: number;
}

export const versionEntry = (tool: AnyTool): VersionEntry => ({ tool, semver: parseSemver(tool.version)!, rank: RANK[statusOf(tool)] });

/** `versions` newest first. Undefined: no version matches the spec. */
export function pickVersion(versions: readonly VersionEntry[], spec: ToolSpec): AnyTool | undefined {
  if (!spec.wellFormed) return undefined;
  const { prefix } = spec;
  let best: VersionEntry | undefined;
  for (const entry of versions) {
    const v = entry.semver;
    if ((prefix.length > 0 && v[0] !== prefix[0]) || (prefix.length > 1 && v[1] !== prefix[1]) || (prefix.length > 2 && v[2] !== prefix[2])) continue;
    // Newest first, so the first of each status wins; a better status beats a newer version.
    if (best === undefined || entry.rank < best.rank) best = entry;
    if (best.rank === 0) break; // nothing beats the newest active match
  }
  return best?.tool;
}
