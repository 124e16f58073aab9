import type { RequestHandler } from 'express';
import { serviceKeyView } from '../../access/views';
import { sendError } from '../../http/envelope';
import { requestLogger } from '../../http/request-context';
import { sendJson } from '../../http/respond';
import { toIssues, validationError } from '../../core/validation';
import { storeUnavailable } from '../../integrations/connections';
import { type ServiceKeyRouteDeps, adminOnly, idParam, keyNotFound } from './service-key-routes';

/** GET /api/admin/service-keys and …/{id} — every key, or one; never a key's value. */
export function readServiceKeysRoute(deps: ServiceKeyRouteDeps): RequestHandler {
  const now = deps.now ?? Date.now;
  return async (req, res) => {
    const forbidden = adminOnly(res);
    if (forbidden) return sendError(res, forbidden);
    const single = req.params.id !== undefined;
    const param = idParam.safeParse(req.params);
    if (single && !param.success) return sendError(res, validationError('Invalid service key id', toIssues(param.error)));
    try {
      const view = (r: Parameters<typeof serviceKeyView>[0]) => serviceKeyView(r, deps.access.keys.pendingUse(r.id), now());
      if (!single) return sendJson(res, 200, { service_keys: (await deps.access.keyStore.list()).map(view) });
      const record = await deps.access.keyStore.get(param.data!.id.toLowerCase());
      if (record === null) return sendError(res, keyNotFound());
      sendJson(res, 200, view(record));
    } catch (err) {
      sendError(res, storeUnavailable(err, requestLogger(deps.logger, res)));
    }
  };
}
