import '../require-node'; // first: refuses an unsupported Node before anything else loads
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import jwt from 'jsonwebtoken';
import type { AdminPrincipal } from '../auth/admin-access';
import { ADMIN_ROLE } from '../auth/admin-jwt';
import { type AdminAuthConfig, ConfigError, loadAdminTokenConfig, processEnv } from '../config';
import { locateDemoSecrets, readDemoSecrets } from '../demo-secrets';

/**
 * `npm run admin-token -- --customer <uuid> | --admin [--ttl <seconds>] [--private-key-file <path>]`: mints a
 * token for the admin API and prints only the token, so `$(npm run -s admin-token -- --admin)` works in a
 * shell. HS256 deployments sign with HUB_ADMIN_JWT_SECRET; RS256 deployments only hold the public key, so the
 * private key must be given as a file. After `npm run demo` (no variable set) the secret the demo generated
 * and saved in <HUB_DATA_DIR>/demo-secrets.json is used, found without repeating HUB_DATA_DIR (src/demo-secrets.ts).
 */

export const DEFAULT_TTL_S = 3600;
/** The most --ttl accepts before the configuration is read; the Hub's own HUB_ADMIN_JWT_MAX_TTL_S bounds it then. */
export const MAX_TTL_S = 366 * 86_400;

export type SigningKey = { algorithm: 'HS256'; secret: string } | { algorithm: 'RS256'; privateKey: string };

/** Signs an admin token; the pure part of the CLI (and what tests use). */
export function mintAdminToken(options: {
  key: SigningKey;
  issuer: string;
  audience: string;
  subject: AdminPrincipal;
  ttlS: number;
  now?: () => number;
}): string {
  const iat = Math.floor((options.now ?? Date.now)() / 1000);
  const claims = options.subject.kind === 'admin' ? { role: ADMIN_ROLE } : { customer_id: options.subject.customerId };
  const material = options.key.algorithm === 'HS256' ? options.key.secret : options.key.privateKey;
  return jwt.sign({ ...claims, iat, exp: iat + options.ttlS }, material, {
    algorithm: options.key.algorithm,
    issuer: options.issuer,
    audience: options.audience,
  });
}

const USAGE = `usage: npm run admin-token -- (--customer <uuid> | --admin) [--ttl <seconds>] [--private-key-file <path>]
  --customer <uuid>          a token that may act on this customer only
  --admin                    a token with role hub_admin (any customer)
  --ttl <seconds>            lifetime, 1..HUB_ADMIN_JWT_MAX_TTL_S (default 30 days); default ${DEFAULT_TTL_S}
  --private-key-file <path>  PEM private key; required when the Hub verifies RS256 (HUB_ADMIN_JWT_PUBLIC_KEY)`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

class UsageError extends Error {}

function parse(argv: string[]): { subject: AdminPrincipal; ttlS: number; privateKeyFile: string | undefined } {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        customer: { type: 'string' },
        admin: { type: 'boolean' },
        ttl: { type: 'string' },
        'private-key-file': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if ((values.customer === undefined) === (values.admin !== true)) throw new UsageError('give exactly one of --customer <uuid> or --admin');
  if (values.customer !== undefined && !UUID.test(values.customer)) throw new UsageError(`--customer must be a UUID, got "${values.customer}"`);
  const ttlS = values.ttl === undefined ? DEFAULT_TTL_S : Number(values.ttl);
  if (!/^\d+$/.test(values.ttl ?? '1') || ttlS < 1 || ttlS > MAX_TTL_S) throw new UsageError(`--ttl must be whole seconds between 1 and ${MAX_TTL_S}`);
  const subject: AdminPrincipal = values.customer === undefined ? { kind: 'admin' } : { kind: 'customer', customerId: values.customer.toLowerCase() };
  return { subject, ttlS, privateKeyFile: values['private-key-file'] };
}

/** The secret `npm run demo` generated, when no key is configured: the demo keeps it next to its database. */
function demoAdminSettings(env: Record<string, string | undefined>, projectDir: string): { admin: AdminAuthConfig | null; looked: string } {
  const file = locateDemoSecrets(env.HUB_DATA_DIR, projectDir);
  if (file === undefined) return { admin: null, looked: 'nowhere (an in-memory demo saves nothing)' };
  const secret = readDemoSecrets(file).HUB_ADMIN_JWT_SECRET;
  return { admin: secret === undefined ? null : loadAdminTokenConfig({ ...env, HUB_ADMIN_JWT_SECRET: secret }).admin, looked: file };
}

function signingKey(admin: AdminAuthConfig, privateKeyFile: string | undefined): SigningKey {
  const key = admin.key!;
  if (key.algorithm === 'HS256') {
    if (privateKeyFile !== undefined) throw new UsageError('--private-key-file is for RS256; this Hub verifies HS256 tokens with HUB_ADMIN_JWT_SECRET');
    return key;
  }
  if (privateKeyFile === undefined) {
    throw new UsageError('the Hub verifies RS256 tokens (HUB_ADMIN_JWT_PUBLIC_KEY is set): give the matching private key with --private-key-file <path>');
  }
  const privateKey = readFileSync(privateKeyFile, 'utf8');
  // A token the Hub would refuse is worse than no token: check the pair here rather than at the first call.
  const derived = createPublicKey(createPrivateKey(privateKey)).export({ type: 'spki', format: 'der' });
  const configured = createPublicKey(key.publicKey).export({ type: 'spki', format: 'der' });
  if (!derived.equals(configured)) throw new UsageError(`the private key in ${privateKeyFile} does not match HUB_ADMIN_JWT_PUBLIC_KEY`);
  return { algorithm: 'RS256', privateKey };
}

/** The whole CLI, minus process globals: returns the exit status. */
export function runAdminTokenCli(
  argv: string[],
  env: Record<string, string | undefined>,
  io: { out: (s: string) => void; err: (s: string) => void },
  projectDir: string = process.cwd(), // npm runs scripts from the project directory, where the demo left its pointer
): number {
  try {
    const args = parse(argv);
    const config = loadAdminTokenConfig(env);
    const demo = config.admin.key !== null ? null : demoAdminSettings(env, projectDir);
    const admin = demo === null ? config.admin : demo.admin;
    if (admin === null) {
      throw new UsageError(
        'no admin key: set HUB_ADMIN_JWT_SECRET (HS256) or HUB_ADMIN_JWT_PUBLIC_KEY with --private-key-file (RS256), ' +
          `or run \`npm run demo\` first (it saves a generated secret; looked in ${demo?.looked})`,
      );
    }
    // A token the Hub would refuse (exp - iat over its HUB_ADMIN_JWT_MAX_TTL_S) is worse than no token.
    if (args.ttlS > admin.maxTtlS) throw new UsageError(`--ttl must be whole seconds between 1 and ${admin.maxTtlS} (HUB_ADMIN_JWT_MAX_TTL_S)`);
    const key = signingKey(admin, args.privateKeyFile);
    io.out(`${mintAdminToken({ key, issuer: admin.issuer, audience: admin.audience, subject: args.subject, ttlS: args.ttlS })}\n`);
    return 0;
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(`${err.message}\n`);
      return 1;
    }
    if (err instanceof UsageError) {
      io.err(`admin-token: ${err.message}\n${USAGE}\n`);
      return 2;
    }
    // An unreadable key file or a malformed PEM: say what failed, not a stack trace.
    io.err(`admin-token: ${(err as Error).message}\n`);
    return 1;
  }
}

if (require.main === module) {
  process.exitCode = runAdminTokenCli(process.argv.slice(2), processEnv(), {
    out: (s) => process.stdout.write(s),
    err: (s) => process.stderr.write(s),
  });
}
