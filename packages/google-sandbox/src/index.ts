/**
 * @hub/google-sandbox: an offline, in-memory emulator of Google OAuth 2.0, Calendar v3 and Gmail v1 at Google's
 * own paths on one origin (README.md). `createSandbox(...).listen()` starts one in this process; the
 * `google-sandbox` command starts one on its own (SANDBOX_* variables, ./config).
 */
export { type RunningSandbox, type Sandbox, type SandboxOptions, createSandbox } from './app';
export { SANDBOX_DEFAULT_CLIENT, SANDBOX_ENV_SCHEMA, type SandboxConfig, SandboxConfigError, loadSandboxConfig } from './config';
export type { AccountSpec } from './control/accounts';
export { DEMO_ACCOUNTS, dateOnly, demoAccounts, mondayOf } from './demo-data';
export { type MessageFormat, renderRawMessage } from './gmail/render';
export { mintOfflineGrant } from './oauth/tokens';
export type { ConsentPolicy, OAuthClient } from './oauth/state';
export { type Account, type RequestLogEntry, type ResponseViolation, type World, accountKey } from './world';
