/**
 * @hub/microsoft-sandbox: an offline, in-memory emulator of the Microsoft identity platform (v2.0) and Microsoft
 * Graph v1.0's calendar and mail at Microsoft's own paths on one origin (README.md). `createSandbox(...).listen()`
 * starts one in this process; the `microsoft-sandbox` command starts one on its own (MS_SANDBOX_* variables).
 */
export { type RunningSandbox, type Sandbox, type SandboxOptions, createSandbox } from './app';
export { MS_SANDBOX_DEFAULT_APP, MS_SANDBOX_ENV_SCHEMA, type MicrosoftSandboxConfig, MicrosoftSandboxConfigError, loadMicrosoftSandboxConfig } from './config';
export { MS_DEMO_ACCOUNTS, MS_DEMO_TENANT, populateDemoWorld } from './demo-data';
export { checkValue, loadGraphSchema, propertyType } from './csdl/schema';
export { GRAPH_SCOPES } from './identity/scopes';
export type { AppRegistration, ConsentPolicy } from './identity/state';
export { ianaOf, windowsOf } from './graph/time';
export type { Person, Tenant, World } from './world';
