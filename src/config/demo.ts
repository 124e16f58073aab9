import { z } from 'zod';
import { parseEnv } from './parse-env';
import { optionalString } from './variables';

/** `npm run demo`'s one setting of its own; everything else it reads is the Hub's and the sandbox's. */
const demoEnvSchema = z.object({
  DEMO_HOST: optionalString
    .pipe(
      z
        .string()
        .regex(/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/, 'must be a host name or IPv4 address')
        .optional(),
    )
    .transform((s) => s ?? 'localhost')
    .describe(
      "Host name a browser uses to reach `npm run demo`: the Hub's and the sandbox's URLs and every printed link use it, and both listen on loopback only when it is `localhost` or `127.x`, else on every interface.",
    ),
});

export interface DemoConfig {
  /** The name in every URL the demo prints and the browser follows (the Hub, the sandbox's consent page). */
  host: string;
  /** Where the Hub and the sandbox listen: loopback for a local name, every interface otherwise. */
  listenHost: string;
}

export function loadDemoConfig(env: Record<string, string | undefined>): DemoConfig {
  const host = parseEnv(demoEnvSchema, env).DEMO_HOST;
  const local = host.toLowerCase() === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(host);
  return { host, listenHost: local ? '127.0.0.1' : '0.0.0.0' };
}

/** The demo's variables for docs/configuration.md (`npm run docs:config`). */
export const DEMO_CONFIG_SCHEMA = { title: 'The demo (`npm run demo`)', schema: demoEnvSchema } as const;
