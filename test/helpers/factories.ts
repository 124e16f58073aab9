import { randomBytes, randomUUID } from 'node:crypto';
import { googleScope } from '../../src/integrations/catalog';
import type { CredentialInput } from '../../src/store/credential-store';

/** Token shapes like Google's, so the log scrubbing is tested against what real tokens look like. */
export const anAccessToken = () => `ya29.a0${randomBytes(48).toString('base64url')}`;
export const aRefreshToken = () => `1//0g${randomBytes(40).toString('base64url')}`;

export const CALENDAR_SCOPES = [googleScope('calendar.readonly'), googleScope('calendar.events')];
export const GMAIL_SCOPES = [googleScope('gmail.send'), googleScope('gmail.readonly'), googleScope('gmail.modify')];

export function aCredential(overrides: Partial<CredentialInput> = {}): CredentialInput {
  return {
    customerId: randomUUID(),
    userId: null,
    integration: 'google_calendar',
    accountEmail: 'owner@example.com',
    scopes: CALENDAR_SCOPES,
    accessToken: anAccessToken(),
    refreshToken: aRefreshToken(),
    tokenExpiresAt: new Date(Date.now() + 3600_000),
    lastRefreshedAt: new Date(),
    ...overrides,
  };
}

export interface ExecuteBody {
  tool: string;
  agent_id: string;
  customer_id: string;
  user_id?: string | null;
  inputs: Record<string, unknown>;
  context?: { conversation_id?: string; request_id?: string };
}

export function anExecuteBody(overrides: Partial<ExecuteBody> = {}): ExecuteBody {
  return {
    tool: 'hub_echo',
    agent_id: randomUUID(),
    customer_id: randomUUID(),
    user_id: null,
    inputs: { message: 'hello' },
    ...overrides,
  };
}
