import { z } from 'zod';
import { type EnvOf, integer, optionalString, url } from './variables';

/** Where the Hub listens, the URL it is reached at, and the proxies in front of it. */
export interface ServerConfig {
  port: number;
  host: string;
  publicUrl: string;
  trustProxy: boolean | number | string;
}

const trustProxy = z
  .string()
  .optional()
  .transform((s): boolean | number | string => {
    const v = s?.trim() ?? '';
    if (v === '' || v === 'false') return false;
    if (v === 'true') return true;
    if (/^\d+$/.test(v)) return Number(v);
    return v; // an express "trust proxy" list such as "loopback, 10.0.0.0/8"
  });

export const serverVariables = {
  NODE_ENV: optionalString.describe(
    'Set to `production` in deployments (the image does): the Hub then refuses to start on embedded PGlite or without a Google OAuth client.',
  ),
  HUB_PORT: integer(8080, 0, 65535).describe('Listening port (`0` = any free port).'),
  HUB_HOST: optionalString.transform((s) => s ?? '0.0.0.0').describe('Listening address.'),
  HUB_PUBLIC_URL: url(['http:', 'https:'], 'http(s)')
    .transform((s) => s.replace(/\/+$/, ''))
    .describe('Public base URL of the Hub (the demo uses `http://$DEMO_HOST:$HUB_PORT`): every `setup_url` and the OAuth callback are built on it.'),
  HUB_TRUST_PROXY: trustProxy.describe('Express `trust proxy` setting behind a load balancer: `true`, a hop count, or addresses (`loopback, 10.0.0.0/8`).'),
};

export type ServerEnv = EnvOf<typeof serverVariables>;

export const serverSection = {
  variables: serverVariables,
  load: (e: ServerEnv): ServerConfig => ({ port: e.HUB_PORT, host: e.HUB_HOST, publicUrl: e.HUB_PUBLIC_URL, trustProxy: e.HUB_TRUST_PROXY }),
};
