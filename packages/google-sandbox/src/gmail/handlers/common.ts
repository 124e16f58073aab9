import type { ApiCall, ApiResult } from '../../api/types';
import { errors, googleError } from '../../google-errors';
import { accountKey } from '../../world';
import { invalidArgument } from '../errors';
import { type Mailbox, type StoredMessage, createMailbox } from '../mailbox';

export { invalidArgument };

/**
 * The mailbox a call addresses. `userId` is 'me' or the token owner's own address; naming anyone else is
 * delegation, which a user token never has.
 */
export function mailboxFor(call: ApiCall): Mailbox | ApiResult {
  const userId = call.params.userId ?? 'me';
  if (userId !== 'me' && accountKey(userId) !== accountKey(call.account.email)) return errors.delegationDenied(userId);
  return ensureMailbox(call.world.gmail.mailboxes, call.account.email, call.world.random);
}

export function ensureMailbox(mailboxes: Map<string, Mailbox>, email: string, random: Parameters<typeof createMailbox>[1]): Mailbox {
  const key = accountKey(email);
  let mb = mailboxes.get(key);
  if (!mb) {
    mb = createMailbox(email, random);
    mailboxes.set(key, mb);
  }
  return mb;
}

export const isResult = (v: unknown): v is ApiResult => typeof v === 'object' && v !== null && 'status' in v && typeof (v as ApiResult).status === 'number';

/** Gmail ids are hex; anything else is rejected before lookup ("Invalid id value"), a valid unknown one is 404. */
export function findMessage(mb: Mailbox, id: string): StoredMessage | ApiResult {
  if (!/^[0-9a-f]{1,20}$/i.test(id)) return invalidArgument('Invalid id value');
  return mb.messages.get(id.toLowerCase()) ?? errors.notFound('gmail');
}

/** Scopes that may read message content; a token with only gmail.metadata sees headers and labels. */
const CONTENT_SCOPES = new Set([
  'https://mail.google.com/',
  'https://www.googleapis.com/auth/gmail.modify',
  'https://www.googleapis.com/auth/gmail.readonly',
  'https://www.googleapis.com/auth/gmail.addons.current.message.readonly',
  'https://www.googleapis.com/auth/gmail.addons.current.message.action',
]);

export const metadataOnly = (call: ApiCall) => !call.scopes.some((s) => CONTENT_SCOPES.has(s));

export const metadataScopeForbids = (what: string): ApiResult => googleError(403, what, { reason: 'forbidden' }, { family: 'gmail' });

/** Format checks shared by messages.get and threads.get under the gmail.metadata scope. */
export function checkFormatScope(call: ApiCall, format: string): ApiResult | undefined {
  if (metadataOnly(call) && (format === 'full' || format === 'raw')) {
    return metadataScopeForbids(`Metadata scope doesn't allow format ${format.toUpperCase()}`);
  }
  return undefined;
}

export function stringList(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return typeof value === 'string' ? [value] : [];
}
