import { z } from 'zod';
import { accessSection } from './access';
import { adminSection } from './admin';
import { auditSection } from './audit';
import { connectSection } from './connect';
import { consoleSection } from './console';
import { databaseSection } from './database';
import { googleSection } from './google';
import { lifecycleSection } from './lifecycle';
import { mcpSection } from './mcp';
import { microsoftSection } from './microsoft';
import { observabilitySection } from './observability';
import { ConfigError, parseEnv } from './parse-env';
import { processesSection } from './processes';
import { protectionSection } from './protection';
import { redisSection } from './redis';
import { secretsSection } from './secrets';
import { serverSection } from './server';
import { tokensSection } from './tokens';
import { toolsSection } from './tools';
import { upstreamSection } from './upstream';
import { VARIABLE_ORDER } from './variable-order';
import type { EnvOf, Variables } from './variables';
import { webhooksSection } from './webhooks';

/**
 * The one place that reads the environment. Everything else receives a parsed `Config`.
 * Every variable is checked at once, so a misconfigured deployment learns all of its mistakes in one
 * message (never echoing a secret's value).
 *
 * Each section of the configuration is a file of its own here: its variables (each with the one sentence
 * docs/configuration.md shows), its type and how its variables become its part of `Config`. A new section is
 * one more file, imported and named in the list below (its type joins `Config` by itself; its variables follow
 * the listed ones on the configuration page unless variable-order.ts places them). Nothing in this folder
 * imports anything of the Hub outside it: features take their settings' types from here.
 */

/**
 * Every section, in the order their refusals are reported: the `problems` of all of them (refusals that involve
 * several variables, such as what production requires) are reported together; then each `load` makes its
 * section's part of `Config` and may refuse on its own (the admin key is checked before the shutdown timing).
 */
const SECTIONS = [
  serverSection,
  secretsSection,
  databaseSection,
  redisSection,
  googleSection,
  microsoftSection,
  observabilitySection,
  processesSection,
  protectionSection,
  upstreamSection,
  toolsSection,
  adminSection,
  consoleSection,
  connectSection,
  tokensSection,
  mcpSection,
  auditSection,
  webhooksSection,
  accessSection,
  lifecycleSection,
] as const;

type Section = (typeof SECTIONS)[number];
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
type HubVariables = UnionToIntersection<Section['variables']>;
type Env = EnvOf<HubVariables>;

/** The parsed configuration: every section's part of it. */
export type Config = UnionToIntersection<ReturnType<Section['load']>>;

/** What the index asks of a section; the Hub's variables meet what each section's loader reads of other sections. */
interface ConfigSection {
  readonly variables: Variables;
  readonly problems?: (e: Env) => string[];
  readonly load: (e: Env) => object;
}
const sections: readonly ConfigSection[] = SECTIONS;

/** Every section's variables, in the order docs/configuration.md lists them; a variable defined twice is a mistake. */
function hubVariables(): HubVariables {
  const all: Variables = {};
  for (const { variables } of sections) {
    for (const [name, variable] of Object.entries(variables)) {
      if (name in all) throw new Error(`${name} is defined by two configuration sections`);
      all[name] = variable;
    }
  }
  const ordered: Variables = {};
  for (const name of VARIABLE_ORDER satisfies readonly (keyof HubVariables)[]) ordered[name] = all[name]!;
  return Object.assign(ordered, all) as HubVariables; // what the list does not name follows, in section order
}

const envSchema = z.object(hubVariables());

/** Parses an environment-like record. Throws ConfigError naming every missing or invalid variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const e = parseEnv(envSchema, env);
  const problems = sections.flatMap((s) => s.problems?.(e) ?? []);
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.assign({}, ...sections.map((s) => s.load(e))) as Config;
}

/** The process environment, for entry points (server, CLI, demo, bench) only. */
export function processEnv(): Record<string, string | undefined> {
  return process.env;
}

/** For entry points: the parsed configuration, or every problem on stderr and exit status 1. */
export function loadConfigOrExit(env: Record<string, string | undefined> = processEnv()): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}

/**
 * The Hub's variables for docs/configuration.md's tables (`npm run docs:config`): src/config-docs.ts lists them
 * with the demo's and the Google sandbox's, which its package reads itself (packages/google-sandbox/src/config.ts).
 */
export const HUB_CONFIG_SCHEMA = { title: 'The Hub', schema: envSchema } as const;

export { ConfigError } from './parse-env';
export { isSecretVariable } from './secret-files';
export { type AccessConfig } from './access';
export { type AdminAuthConfig, loadAdminTokenConfig } from './admin';
export { type AuditConfig, type PayloadMode } from './audit';
export { type ConnectConfig } from './connect';
export { type ConsoleConfig, loadSignInConfig } from './console';
export { type DatabaseConfig, loadMigrateConfig } from './database';
export { DEMO_CONFIG_SCHEMA, type DemoConfig, loadDemoConfig } from './demo';
export { GOOGLE_ENDPOINTS, type GoogleConfig, type GoogleEndpoints } from './google';
export { type LifecycleConfig } from './lifecycle';
export { type McpConfig } from './mcp';
export { MICROSOFT_AUTHORITY, MICROSOFT_GRAPH, type MicrosoftConfig } from './microsoft';
export { OUTLOOK_PUBLISHED_LIMITS, type OutlookMailboxLimits } from './outlook-limits';
export { type LogLevel, type ObservabilityConfig } from './observability';
export { type IdempotencyConfig, type RateLimitConfig } from './protection';
export { type EncryptionKey, parseEncryptionKeys } from './secrets';
export { type TokenLifecycleConfig } from './tokens';
export { type HtmlConversionConfig } from './tools';
export { type GlobalBreakerConfig, type GmailProtectionConfig, type UpstreamConfig } from './upstream';
export { SECRET_PREFIX, type WebhookConfig, secretProblem } from './webhooks';
export { type TargetProblem, isForbiddenAddress, targetUrlProblem } from './webhook-targets';
