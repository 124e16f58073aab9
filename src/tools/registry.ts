import { z } from 'zod';
import { INTEGRATION_IDS, type IntegrationId } from '../core/integrations';
import { INTEGRATIONS } from '../integrations/catalog';
import { scopesFor } from '../integrations/scopes';
import { type VersionInfo, versionInfo } from './deprecation';
import type { AnyTool } from './types';
import { type VersionEntry, compareDesc, parseSemver, parseToolSpec, pickVersion, statusOf, versionEntry } from './versions';

/** What a `tool` string names: a version to run, or why there is none. */
export type Resolution =
  | { kind: 'found'; tool: AnyTool }
  | { kind: 'unknown_tool' }
  /** The name exists but no version matches the spec; `available` = its versions that are not blocked. */
  | { kind: 'no_such_version'; available: string[] }
  | { kind: 'blocked'; tool: AnyTool };

export interface ToolRegistry {
  /** `name`, `name@1`, `name@1.2`, `name@1.2.0` → the version to run (see versions.ts). */
  resolve(spec: string): Resolution;
  /** The version a spec resolves to when it may run (active or deprecated); undefined otherwise. */
  get(spec: string): AnyTool | undefined;
  /** One per name: the version a bare name resolves to. */
  list(): readonly AnyTool[];
  /** Every version of a name, newest first. */
  versions(name: string): readonly AnyTool[];
  names(): readonly string[];
  /**
   * Every `tool` string that resolves to this version — the bare name when it is the one a bare name runs, then
   * `name@M`, `name@M.m`, `name@M.m.p` where they pick it — so a closed list can describe what `tool` accepts.
   */
  spellings(tool: AnyTool): readonly string[];
  /**
   * The tools an integration can serve (those of its capability), each as that integration sees it: `integration`
   * and `requiredScopes` are its own (Graph's scopes for outlook_mail), so a grant is judged by its provider's rules.
   */
  forIntegration(integration: IntegrationId): readonly AnyTool[];
  /** `metadata.tool_version` and, for a deprecated version, its notice and headers (computed at start). */
  versionInfo(tool: AnyTool): VersionInfo;
}

const TOOL_NAME = /^[a-z][a-z0-9_]{1,63}$/;
const INSTANT = z.iso.datetime();

function checkTool(tool: AnyTool): void {
  if (!TOOL_NAME.test(tool.name)) throw new Error(`tool name "${tool.name}" must match ${TOOL_NAME}`);
  if (!parseSemver(tool.version)) throw new Error(`tool "${tool.name}": version "${tool.version}" must be major.minor.patch`);
  if (!(tool.input instanceof z.ZodObject) || !(tool.input.def.catchall instanceof z.ZodNever)) {
    throw new Error(`tool "${tool.name}" must declare its input as z.strictObject(...)`);
  }
  if ((tool.sideEffects === 'writes') !== (tool.destructive !== undefined)) {
    throw new Error(`tool "${tool.name}": a tool that writes declares whether it is destructive (changes or removes), one that reads does not`);
  }
  if ((tool.capability === null) !== (tool.permissions.length === 0)) {
    throw new Error(`tool "${tool.name}": permissions go with a capability, and a capability needs permissions`);
  }
  const life = tool.lifecycle;
  if (!life) return;
  for (const at of [life.deprecatedAt, life.sunsetAt]) {
    if (at !== undefined && !INSTANT.safeParse(at).success) throw new Error(`tool "${tool.name}@${tool.version}": "${at}" is not an ISO 8601 UTC instant`);
  }
  if (life.status === 'deprecated' && life.deprecatedAt === undefined) {
    throw new Error(`tool "${tool.name}@${tool.version}" is deprecated without deprecatedAt (the Deprecation header needs it)`);
  }
}

/** Checks every tool once at start, so a malformed tool fails the boot rather than a request. */
export function createToolRegistry(tools: readonly AnyTool[]): ToolRegistry {
  const byName = new Map<string, VersionEntry[]>();
  for (const tool of tools) {
    checkTool(tool);
    const versions = byName.get(tool.name) ?? [];
    if (versions.some((v) => v.tool.version === tool.version)) throw new Error(`tool "${tool.name}@${tool.version}" is registered twice`);
    versions.push(versionEntry(tool));
    versions.sort((a, b) => compareDesc(a.semver, b.semver));
    byName.set(tool.name, versions);
  }
  // Every spec that names a version — `name`, `name@M`, `name@M.m`, `name@M.m.p` — resolved once at start, so a
  // request's lookups (twice: the rate-limit charge, then the call) are one Map.get; other strings parse.
  const known = new Map<string, Resolution>();
  const settle = (tool: AnyTool): Resolution => (statusOf(tool) === 'blocked' ? { kind: 'blocked', tool } : { kind: 'found', tool });
  for (const [name, versions] of byName) {
    known.set(name, settle(pickVersion(versions, { name, prefix: [], wellFormed: true })!));
    for (const { semver } of versions) {
      for (let n = 1; n <= 3; n++) {
        const prefix = semver.slice(0, n);
        known.set(`${name}@${prefix.join('.')}`, settle(pickVersion(versions, { name, prefix, wellFormed: true })!));
      }
    }
  }

  const resolve = (spec: string): Resolution => {
    const hit = known.get(spec);
    if (hit) return hit;
    const versions = byName.get(parseToolSpec(spec).name);
    if (!versions) return { kind: 'unknown_tool' };
    // A known name whose version matched nothing (every match was computed above).
    return { kind: 'no_such_version', available: versions.filter((v) => statusOf(v.tool) !== 'blocked').map((v) => v.tool.version) };
  };

  for (const tool of tools) {
    const replacement = tool.lifecycle?.replacement;
    if (replacement !== undefined && resolve(replacement).kind !== 'found') {
      throw new Error(`tool "${tool.name}@${tool.version}": replacement "${replacement}" does not resolve to a runnable version`);
    }
  }

  const spellings = new Map<AnyTool, string[]>(tools.map((t) => [t, []]));
  for (const [spec, resolution] of known) if ('tool' in resolution) spellings.get(resolution.tool)!.push(spec);
  const infos = new Map<AnyTool, VersionInfo>(tools.map((t) => [t, versionInfo(t)]));
  const list = [...byName.keys()].map((name) => (known.get(name) as { tool: AnyTool }).tool);
  const names = list.map((t) => t.name).sort();
  const byIntegration = new Map<IntegrationId, AnyTool[]>(
    INTEGRATION_IDS.map((integration) => [
      integration,
      list
        .filter((t) => t.capability === INTEGRATIONS[integration].capability)
        .map((t) => ({ ...t, integration, requiredScopes: scopesFor(integration, t.permissions) })),
    ]),
  );
  return {
    resolve,
    get: (spec) => {
      const r = resolve(spec);
      return r.kind === 'found' ? r.tool : undefined;
    },
    list: () => list,
    versions: (name) => (byName.get(name) ?? []).map((v) => v.tool),
    names: () => names,
    spellings: (tool) => spellings.get(tool) ?? [],
    forIntegration: (integration) => byIntegration.get(integration) ?? [],
    versionInfo: (tool) => infos.get(tool) ?? versionInfo(tool),
  };
}
