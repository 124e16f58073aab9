import type { RequestHandler, Response } from 'express';
import { z } from 'zod';
import { actorOf, mayActOn, principalOf } from '../../auth/admin-access';
import { type ConnectionEvent, type OnConnectionEvent, recordWith } from '../../audit/connection-events';
import { hubError } from '../../core/errors';
import { sendError } from '../../http/envelope';
import { requestLogger } from '../../http/request-context';
import { sendJson } from '../../http/respond';
import { parseParamsAndQuery, toIssues, validationError } from '../../core/validation';
import { storeUnavailable } from '../../integrations/connections';
import type { CredentialChange } from '../../integrations/credential-events';
import { type WorkingHours, workingHoursSchema, workingHoursView } from '../../core/working-hours';
import type { Logger } from '../../logger';
import type { CredentialRecord, CredentialStore } from '../../store/credential-store';
import { userIdSchema } from '../../tools/execute-request';

const params = z.object({ customer_id: z.guid('must be a UUID') });
const query = z.strictObject({ user_id: userIdSchema.optional() });
const INTEGRATION = 'google_calendar' as const;

export interface WorkingHoursDeps {
  store: CredentialStore;
  /** Tells this replica's credential cache (and the others') that the connection changed. */
  onCredentialChanged: (change: CredentialChange) => void;
  /** Audit trail (with the admin's `sub`); must not block. */
  onConnectionEvent?: OnConnectionEvent;
  logger: Logger;
}

/**
 * PUT (set) and DELETE (back to the default) /api/admin/customers/{customer_id}/integrations/google_calendar/working-hours?user_id=
 * — Google Calendar has no API for working hours, so the calendar tools read them from here. They belong to
 * exactly one connection (the end user's own with user_id, else the customer-wide one; no fallback), survive
 * reconnects and go with a disconnect.
 */
export function workingHoursRoute(deps: WorkingHoursDeps, action: 'set' | 'clear'): RequestHandler {
  return async (req, res) => {
    const parsed = parseParamsAndQuery({ params, query }, req, 'Invalid customer_id or query parameters');
    if (!parsed.ok) {
      sendError(res, parsed.error);
      return;
    }
    let hours: WorkingHours | null = null;
    if (action === 'set') {
      const body = workingHoursSchema.safeParse(req.body);
      if (!body.success) {
        sendError(res, validationError('Invalid working hours', toIssues(body.error)));
        return;
      }
      hours = body.data;
    }
    const target = { customerId: parsed.params.customer_id.toLowerCase(), userId: parsed.query.user_id ?? null, integration: INTEGRATION };
    const principal = principalOf(res);
    const forbidden = mayActOn(principal, target.customerId);
    if (forbidden) {
      sendError(res, forbidden);
      return;
    }
    await save(deps, res, target, hours, actorOf(principal));
  };
}

async function save(
  deps: WorkingHoursDeps,
  res: Response,
  target: CredentialChange & { integration: typeof INTEGRATION },
  hours: WorkingHours | null,
  actor: string | null,
) {
  const eventOf = (updated: CredentialRecord): ConnectionEvent => ({
    kind: 'working_hours_changed',
    ...target,
    accountEmail: updated.accountEmail,
    actor,
    details: { working_hours: hours === null ? 'default' : 'set' },
  });
  let record: CredentialRecord | null;
  try {
    // The audit row commits with the change (the row's account is known only once it is updated).
    record = await deps.store.setWorkingHours(target.customerId, target.userId, target.integration, hours, recordWith(deps.onConnectionEvent, eventOf));
  } catch (err) {
    sendError(res, storeUnavailable(err, requestLogger(deps.logger, res)));
    return;
  }
  if (record === null) {
    const who = target.userId === null ? 'customer-wide' : 'for this end user';
    sendError(
      res,
      hubError('RESOURCE_NOT_FOUND', `There is no Google Calendar connection ${who}; connect it first`, { details: { integration: target.integration } }),
    );
    return;
  }
  deps.onCredentialChanged(target);
  deps.onConnectionEvent?.(eventOf(record));
  sendJson(res, 200, { customer_id: target.customerId, user_id: target.userId, integration: target.integration, ...workingHoursView(record.workingHours) });
}
