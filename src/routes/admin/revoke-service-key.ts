import type { RequestHandler } from 'express';
import { serviceKeyView } from '../../access/views';
import { sendError } from '../../http/envelope';
import { requestLogger } from '../../http/request-context';
import { sendJson } from '../../http/respond';
import { toIssues, validationError } from '../../core/validation';
import { storeUnavailable } from '../../integrations/connections';
import { type ServiceKeyRouteDeps, adminOnly, idParam, keyNotFound } from './service-key-routes';

/** DELETE /api/admin/service-keys/{id} — revoked on every replica at once; revoking twice changes nothing. */
export function revokeServiceKeyRoute(deps: ServiceKeyRouteDeps): RequestHandler {
  const now = deps.now ?? Date.now;
  return async (req, res) => {
    const forbidden = adminOnly(res);
    if (forbidden) return sendError(res, forbidden);
    const param = idParam.safeParse(req.params);
    if (!param.success) return sendError(res, validationError('Invalid service key id', toIssues(param.error)));
    try {
      const record = await deps.access.keyStore.revoke(param.data.id.toLowerCase());
      if (record === null) return sendError(res, keyNotFound());
      // Answered only once this replica refuses the key; the others are told at the same moment.
      await deps.access.changed({ kind: 'service_keys' });
      sendJson(res, 200, serviceKeyView(record, deps.access.keys.pendingUse(record.id), now()));
    } catch (err) {
      sendError(res, storeUnavailable(err, requestLogger(deps.logger, res)));
    }
  };
}
