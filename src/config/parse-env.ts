import type { z } from 'zod';
import { withSecretFiles } from './secret-files';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses with one of the schemas; every problem at once, each naming its variable (never echoing a value). */
export function parseEnv<S extends z.ZodObject>(schema: S, env: Record<string, string | undefined>): z.output<S> {
  const files = withSecretFiles(Object.keys(schema.shape), env);
  const parsed = schema.safeParse(files.env);
  const problems = [...files.problems.values()];
  if (!parsed.success) {
    for (const i of parsed.error.issues) {
      const name = i.path.join('.');
      if (!files.problems.has(name)) problems.push(`${name || '(environment)'}: ${i.message}`);
    }
  }
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  return parsed.data;
}
