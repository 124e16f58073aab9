import { randomUUID } from 'node:crypto';
import type { CredentialRecord } from '../../src/store/credential-store';

/**
 * A stored credential row as the store hands it over, for unit tests that judge rows without a database: connected,
 * Google Calendar, no tokens, no grant facts. Each test states what it needs of the row through `overrides`.
 */
export const aCredentialRecord = (overrides: Partial<CredentialRecord> = {}): CredentialRecord => ({
  id: randomUUID(),
  customerId: randomUUID(),
  userId: null,
  integration: 'google_calendar',
  accountEmail: null,
  scopes: [],
  status: 'connected',
  tokenExpiresAt: null,
  workingHours: null,
  tokenVersion: 1,
  grantedAt: null,
  refreshTokenExpiresAt: null,
  expiryReason: null,
  lastRefreshedAt: null,
  lastError: null,
  lastErrorAt: null,
  createdAt: new Date(),
  updatedAt: new Date(),
  sealed: { keyId: 'k1', access: null, refresh: null },
  ...overrides,
});

/** The moment grant-lifetime tests judge rows at, and the two publishing statuses of the Hub's Google app. */
export const GRANT_NOW = Date.parse('2030-06-01T12:00:00Z');
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const PRODUCTION = { testingMode: false };
export const TESTING = { testingMode: true };

/**
 * A connected Google Mail row as of GRANT_NOW, holding both tokens: granted a day before, its access token good for an
 * hour more, the row itself 30 days old (what a grant with no known grantedAt counts from).
 */
export const aGrantRow = (overrides: Partial<CredentialRecord> = {}): CredentialRecord =>
  aCredentialRecord({
    integration: 'google_gmail',
    accountEmail: 'ana@acme.example',
    tokenExpiresAt: new Date(GRANT_NOW + HOUR),
    grantedAt: new Date(GRANT_NOW - DAY),
    createdAt: new Date(GRANT_NOW - 30 * DAY),
    updatedAt: new Date(GRANT_NOW - DAY),
    sealed: { keyId: 'k1', access: Buffer.from('a'), refresh: Buffer.from('r') },
    ...overrides,
  });
