import type { Response } from 'express';
import { type HubError, hubError } from '../core/errors';

/**
 * Who is calling the admin API, as its verified token says: an operator of the Hub (`role: "hub_admin"`, any
 * customer) or a customer's own backend (`customer_id`, that customer only).
 */
export type AdminPrincipal = ({ kind: 'admin' } | { kind: 'customer'; customerId: string }) & {
  /** The token's `sub` (who the person is), recorded in the audit trail for what they change. */
  sub?: string;
};

/** Who did it, for the audit trail: the admin token's `sub`, or null when it named nobody. */
export const actorOf = (principal: AdminPrincipal): string | null => principal.sub ?? null;

/** Null when the principal may act on `customerId` (lower-case); else the FORBIDDEN error to answer with. */
export function mayActOn(principal: AdminPrincipal, customerId: string): HubError | null {
  if (principal.kind === 'admin' || principal.customerId === customerId) return null;
  // Same answer whether or not the customer exists: a customer's token learns nothing about other customers.
  return hubError('FORBIDDEN', 'This admin token may only act on its own customer');
}

/** The principal adminJwtAuth stored for this request; a route mounted without it is a wiring bug. */
export function principalOf(res: Response): AdminPrincipal {
  const principal = res.locals.admin;
  if (principal === undefined) throw new Error('admin route reached without adminJwtAuth');
  return principal;
}
