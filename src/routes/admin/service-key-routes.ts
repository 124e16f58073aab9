import type { Response } from 'express';
import { z } from 'zod';
import type { Access } from '../../access';
import { principalOf } from '../../auth/admin-access';
import { type HubError, hubError } from '../../core/errors';
import type { Logger } from '../../logger';
import type { ToolRegistry } from '../../tools/registry';

/**
 * What the service-key routes share. Keys are an operator's tool — they decide which customers an agent service
 * may act for — so only a `hub_admin` token manages them.
 */

export interface ServiceKeyRouteDeps {
  access: Access;
  tools: ToolRegistry;
  logger: Logger;
  now?: () => number;
}

export const idParam = z.object({ id: z.guid('must be a UUID') });

export const adminOnly = (res: Response): HubError | null =>
  principalOf(res).kind === 'admin' ? null : hubError('FORBIDDEN', 'Only a hub_admin token manages service keys');

export const keyNotFound = () => hubError('RESOURCE_NOT_FOUND', 'There is no service key with this id');
