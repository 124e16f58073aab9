import { readFileSync } from 'node:fs';

/**
 * The variables that hold a secret (or one inside them: the password of a database or Redis URL). Each X of them
 * also reads from a file named by X_FILE (Docker and Kubernetes secrets mounted as files), so a secret need not
 * sit in the environment, where child processes, crash reports and `docker inspect` see it. Keys and certificates
 * are included (a PEM is easier in a file), and any variable added later whose name says it is a secret.
 */
const SECRET_VARIABLE = /_(SECRETS?|KEYS?|TOKEN|PASSWORD)$/;
export const isSecretVariable = (name: string): boolean => SECRET_VARIABLE.test(name) || name === 'DATABASE_URL' || name === 'REDIS_URL';

/** The environment with each secret variable X read from X_FILE where that is set; problems name X_FILE, never a value. */
export function withSecretFiles(
  names: string[],
  env: Record<string, string | undefined>,
): { env: Record<string, string | undefined>; problems: Map<string, string> } {
  const out = { ...env };
  const problems = new Map<string, string>();
  const set = (v: string | undefined) => v !== undefined && v.trim() !== '';
  for (const name of names.filter(isSecretVariable)) {
    const path = env[`${name}_FILE`];
    if (!set(path)) continue;
    if (set(env[name])) {
      problems.set(name, `${name} and ${name}_FILE are both set: set one of them, not both`);
      continue;
    }
    try {
      // The file's trailing newline (echo, most editors, `kubectl create secret --from-file`) is not part of the secret.
      const value = readFileSync(path!.trim(), 'utf8').replace(/[\r\n]+$/, '');
      if (value.trim() === '') problems.set(name, `${name}_FILE: ${path!.trim()} is empty`);
      else out[name] = value;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
      problems.set(name, `${name}_FILE: cannot read ${path!.trim()} (${code})`);
    }
  }
  return { env: out, problems };
}
