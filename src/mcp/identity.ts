import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import type { ServicePrincipal } from '../access/service-keys';
import type { ValidationIssue } from '../core/validation';

/**
 * Who an MCP request acts for, from its headers (an MCP client sends the same headers with every message), and
 * who pays for each message: the (customer, agent) the headers name — the very limits an execute call for them
 * spends — or, when they do not name both, the credential itself, so a message without them is charged too.
 */

export const HEADERS = {
  customer: 'X-Hub-Customer-Id',
  agent: 'X-Hub-Agent-Id',
  user: 'X-Hub-User-Id',
  conversation: 'X-Hub-Conversation-Id',
} as const;

export interface Identity {
  customerId: string | undefined;
  agentId: string | undefined;
  userId: string | undefined;
  conversationId: string | undefined;
  /** Identity headers that are present but unusable (not a UUID, or sent twice), path `headers.<name>`. */
  invalid: ValidationIssue[];
}

const uuid = z.guid();

const one = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(',') : value);

export function identityOf(headers: IncomingHttpHeaders): Identity {
  const invalid: ValidationIssue[] = [];
  const id = (name: string): string | undefined => {
    const value = one(headers[name.toLowerCase()]);
    if (value === undefined) return undefined;
    if (uuid.safeParse(value).success) return value.toLowerCase();
    invalid.push({ path: `headers.${name}`, message: 'must be a UUID' });
    return undefined;
  };
  return {
    customerId: id(HEADERS.customer),
    agentId: id(HEADERS.agent),
    userId: one(headers[HEADERS.user.toLowerCase()]),
    conversationId: one(headers[HEADERS.conversation.toLowerCase()]),
    invalid,
  };
}

/** The identity headers a tool call needs that are missing or unusable, path `headers.<name>`; empty when none. */
export function callHeaderIssues(identity: Identity): ValidationIssue[] {
  const issues = [...identity.invalid];
  const named = new Set(issues.map((i) => i.path));
  for (const [name, value] of [
    [HEADERS.customer, identity.customerId],
    [HEADERS.agent, identity.agentId],
  ] as const) {
    if (value === undefined && !named.has(`headers.${name}`)) issues.push({ path: `headers.${name}`, message: 'is missing' });
  }
  return issues;
}

/** Whose limits a message spends: the named caller, else the credential (each key its own, the secrets one). */
export function payerOf(identity: Identity, principal: ServicePrincipal | undefined): { customerId: string; agentId: string } {
  if (identity.customerId !== undefined && identity.agentId !== undefined) return { customerId: identity.customerId, agentId: identity.agentId };
  const credential = principal?.kind === 'key' ? `key:${principal.key.id}` : 'service-secret';
  return { customerId: credential, agentId: credential };
}
