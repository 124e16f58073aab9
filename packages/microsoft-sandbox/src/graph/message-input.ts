import { loadGraphSchema, propertyType } from '../csdl/schema';
import type { World } from '../world';
import { GE, type GraphError, graphError } from './errors';
import { readRecipient } from './event-input';
import type { Attachment, ExtendedProperty, InternetHeader, MessageRec, Recipient } from './mailbox';

/**
 * A message body for create (user-post-messages), update (message-update) and sendMail: properties must exist
 * on microsoft.graph.message in the CSDL. On a sent or received message only isRead, categories, flag and
 * importance may change (message-update: "The following properties can be updated only in a draft").
 *
 * Custom internet headers: "Add custom headers only when creating a message, and name them starting with
 * 'x-'" (message resource); another name is 400 InvalidInternetMessageHeader "The internet message header name
 * '…' should start with 'x-' or 'X-'." (reported verbatim by several Graph clients), and more than five custom
 * headers are refused as InvalidInternetMessageHeaderCollection (reported from live tests). Single-value extended
 * properties (singlevaluelegacyextendedproperty-post-singlevalueextendedproperties) can be set on create or by
 * PATCH; their id is `{type} {proptag}`, `{type} {guid} Name {name}` or `{type} {guid} Id {id}`
 * (extended-properties-overview).
 */

const READ_ONLY = new Set([
  'id',
  'changeKey',
  'createdDateTime',
  'lastModifiedDateTime',
  'receivedDateTime',
  'sentDateTime',
  'hasAttachments',
  'internetMessageId',
  'bodyPreview',
  'parentFolderId',
  'conversationId',
  'conversationIndex',
  'isDraft',
  'webLink',
  'inferenceClassification',
  'sender',
  'from',
]);
const DRAFT_ONLY = new Set(['subject', 'body', 'toRecipients', 'ccRecipients', 'bccRecipients', 'replyTo', 'attachments']);
/** A single request carries at most 3 MB of attachments; larger ones need an upload session (attachment-createuploadsession). */
export const MAX_INLINE_ATTACHMENT_BYTES = 3 * 1024 * 1024;

export type MessagePatch = Partial<
  Pick<
    MessageRec,
    | 'subject'
    | 'bodyHtml'
    | 'bodyType'
    | 'to'
    | 'cc'
    | 'bcc'
    | 'replyTo'
    | 'isRead'
    | 'importance'
    | 'categories'
    | 'flag'
    | 'attachments'
    | 'headers'
    | 'extended'
  >
>;

export const MAX_CUSTOM_HEADERS = 5;
const PROPERTY_TYPES = 'Binary|Boolean|CLSID|Currency|Double|Float|Integer|Long|Object|Short|String|SystemTime';
const GUID = '\\{?[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\\}?';
const EXTENDED_ID = new RegExp(`^(?:${PROPERTY_TYPES}) (?:0x[0-9A-Fa-f]{1,4}|${GUID} (?:Name [^\\s].{0,254}|Id 0x[0-9A-Fa-f]{1,8}))$`, 's');

function internetHeaders(v: unknown): InternetHeader[] | GraphError {
  if (!Array.isArray(v)) return GE.badRequest('internetMessageHeaders must be an array.');
  if (v.length > MAX_CUSTOM_HEADERS)
    return graphError(
      400,
      'InvalidInternetMessageHeaderCollection',
      `Maximum number of headers in one message should be less than or equal to ${MAX_CUSTOM_HEADERS}.`,
    );
  const out: InternetHeader[] = [];
  for (const h of v) {
    if (!isObj(h) || typeof h.name !== 'string' || typeof h.value !== 'string') return GE.badRequest('An internet message header needs a name and a value.');
    if (!/^x-/i.test(h.name))
      return graphError(400, 'InvalidInternetMessageHeader', `The internet message header name '${h.name}' should start with 'x-' or 'X-'.`);
    out.push({ name: h.name, value: h.value });
  }
  return out;
}

function extendedProperties(v: unknown): ExtendedProperty[] | GraphError {
  if (!Array.isArray(v)) return GE.badRequest('singleValueExtendedProperties must be an array.');
  const out: ExtendedProperty[] = [];
  for (const p of v) {
    if (!isObj(p) || typeof p.id !== 'string' || typeof p.value !== 'string') return GE.badRequest('An extended property needs an id and a string value.');
    if (!EXTENDED_ID.test(p.id)) return GE.badRequest(`The extended property id '${p.id}' is not valid.`);
    out.push({ id: p.id, value: p.value });
  }
  return out;
}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function recipients(v: unknown): Recipient[] | GraphError {
  if (!Array.isArray(v)) return graphError(400, 'ErrorInvalidRecipients', 'Recipients must be an array.');
  const out: Recipient[] = [];
  for (const r of v) {
    const one = readRecipient(r);
    if ('code' in one) return one;
    out.push(one);
  }
  return out;
}

export function readAttachment(world: World, v: unknown): Attachment | GraphError {
  if (!isObj(v) || v['@odata.type'] !== '#microsoft.graph.fileAttachment')
    return GE.badRequest("An attachment needs '@odata.type': '#microsoft.graph.fileAttachment' (item and reference attachments are not emulated).");
  if (typeof v.name !== 'string' || typeof v.contentBytes !== 'string') return GE.badRequest('A file attachment needs a name and contentBytes.');
  const bytes = Buffer.from(v.contentBytes, 'base64');
  if (bytes.length > MAX_INLINE_ATTACHMENT_BYTES)
    return graphError(413, 'ErrorRequestEntityTooLarge', 'The attachment is larger than 3 MB; use an upload session.');
  return {
    id: `AAMkAG${world.random.string(100, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_')}=`,
    name: v.name,
    contentType: typeof v.contentType === 'string' ? v.contentType : 'application/octet-stream',
    bytes,
    isInline: v.isInline === true,
    lastModified: world.clock.now(),
  };
}

/** `creating`: the body makes a new message (create, createReply, sendMail), the only time headers may be given. */
export function readMessageBody(world: World, body: unknown, isDraft: boolean, creating = false): MessagePatch | GraphError {
  if (!isObj(body)) return GE.badRequest('Empty Payload. JSON content expected.');
  const schema = loadGraphSchema();
  const out: MessagePatch = {};
  for (const [key, v] of Object.entries(body)) {
    if (key.startsWith('@odata.') || READ_ONLY.has(key)) continue;
    if (!propertyType(schema, 'microsoft.graph.message', key))
      return graphError(
        400,
        'BadRequest',
        `The property '${key}' does not exist on type 'microsoft.graph.message'. Make sure to only use property names that are defined by the type or mark the type as open type.`,
      );
    if (!isDraft && DRAFT_ONLY.has(key)) return graphError(400, 'ErrorInvalidPropertyUpdateSentMessage', 'Update to a sent message is not supported.');
    switch (key) {
      case 'subject':
        if (typeof v !== 'string') return GE.badRequest('subject must be a string.');
        out.subject = v;
        break;
      case 'body':
        if (!isObj(v) || typeof v.content !== 'string') return GE.badRequest('body must have content.');
        out.bodyHtml = v.content;
        out.bodyType = String(v.contentType ?? 'text').toLowerCase() === 'html' ? 'html' : 'text';
        break;
      case 'toRecipients':
      case 'ccRecipients':
      case 'bccRecipients':
      case 'replyTo': {
        const list = recipients(v);
        if ('code' in list) return list;
        out[key === 'toRecipients' ? 'to' : key === 'ccRecipients' ? 'cc' : key === 'bccRecipients' ? 'bcc' : 'replyTo'] = list;
        break;
      }
      case 'isRead':
        if (typeof v !== 'boolean') return GE.badRequest('isRead must be a boolean.');
        out.isRead = v;
        break;
      case 'importance':
        if (!['low', 'normal', 'high'].includes(String(v)))
          return GE.badRequest(`Cannot convert the literal '${String(v)}' to the expected type 'microsoft.graph.importance'.`);
        out.importance = v as MessageRec['importance'];
        break;
      case 'categories':
        if (!Array.isArray(v) || v.some((c) => typeof c !== 'string')) return GE.badRequest('categories must be strings.');
        out.categories = v as string[];
        break;
      case 'flag': {
        const status = isObj(v) ? String(v.flagStatus) : '';
        if (!['notFlagged', 'flagged', 'complete'].includes(status))
          return GE.badRequest(`Cannot convert the literal '${status}' to the expected type 'microsoft.graph.followupFlagStatus'.`);
        out.flag = status as MessageRec['flag'];
        break;
      }
      case 'internetMessageHeaders': {
        if (!creating) return GE.badRequest('Custom internet message headers can be added only when the message is created.');
        const list = internetHeaders(v);
        if ('code' in list) return list;
        out.headers = list;
        break;
      }
      case 'singleValueExtendedProperties': {
        const list = extendedProperties(v);
        if ('code' in list) return list;
        out.extended = list;
        break;
      }
      case 'attachments': {
        if (!Array.isArray(v)) return GE.badRequest('attachments must be an array.');
        const list: Attachment[] = [];
        for (const a of v) {
          const one = readAttachment(world, a);
          if ('code' in one) return one;
          list.push(one);
        }
        out.attachments = list;
        break;
      }
      default:
        break;
    }
  }
  return out;
}
