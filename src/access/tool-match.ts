import type { ToolRegistry } from '../tools/registry';

/**
 * Tool allow-lists (a policy's `enabled_tools`, a service key's `tools`): entries are a tool name, which allows
 * every version of it, or `name@major`, which allows only that major version (a major version is a breaking
 * change of the tool's inputs or outputs, so an operator may pin what an agent was written against).
 */

export interface ToolRef {
  name: string;
  /** Semver of the tool's contract (ToolDefinition.version). */
  version: string;
}

const ENTRY = /^([a-z][a-z0-9_]{1,63})(?:@(0|[1-9][0-9]{0,5}))?$/;

export const majorOf = (version: string) => Number(version.split('.', 1)[0]);

export type ToolMatcher = (tool: ToolRef) => boolean;

/** Entries are validated at write (toolEntryProblems); one that does not parse here matches nothing. */
export function toolMatcher(entries: readonly string[]): ToolMatcher {
  const anyVersion = new Set<string>();
  const majors = new Map<string, Set<number>>();
  for (const entry of entries) {
    const m = ENTRY.exec(entry);
    if (!m) continue;
    if (m[2] === undefined) anyVersion.add(m[1]!);
    else {
      const set = majors.get(m[1]!) ?? new Set<number>();
      set.add(Number(m[2]));
      majors.set(m[1]!, set);
    }
  }
  return (tool) => anyVersion.has(tool.name) || (majors.get(tool.name)?.has(majorOf(tool.version)) ?? false);
}

/** Why each entry is not a tool (or tool version) this Hub offers: `[index, message]`, empty when all are. */
export function toolEntryProblems(entries: readonly string[], registry: ToolRegistry): [number, string][] {
  const problems: [number, string][] = [];
  entries.forEach((entry, i) => {
    const m = ENTRY.exec(entry);
    if (!m) {
      problems.push([i, 'must be a tool name or "name@major" (e.g. "email_send" or "email_send@1")']);
      return;
    }
    const tool = registry.get(m[1]!);
    if (!tool) problems.push([i, `unknown tool "${m[1]}"; available: ${registry.names().join(', ')}`]);
    else if (m[2] !== undefined && majorOf(tool.version) !== Number(m[2])) {
      problems.push([i, `${m[1]} has no major version ${m[2]} (it is at ${tool.version})`]);
    }
  });
  return problems;
}
