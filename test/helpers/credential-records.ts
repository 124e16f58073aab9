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

