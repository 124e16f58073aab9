import { z } from 'zod';

/**
 * The parts of Graph's answers the mail adapter reads (message, attachment, user, mailFolder: the v1.0 resource
 * pages), checked before use. Graph writes `null` for many absent values, so most fields are nullish; extra
 * fields pass through unread.
 */

const recipient = z.object({
  emailAddress: z.object({ name: z.string().nullish(), address: z.string().nullish() }).nullish(),
});

export const messageSchema = z.object({
  id: z.string().min(1),
  conversationId: z.string().nullish(),
  subject: z.string().nullish(),
  bodyPreview: z.string().nullish(),
  receivedDateTime: z.string().nullish(),
  sentDateTime: z.string().nullish(),
  hasAttachments: z.boolean().nullish(),
  isRead: z.boolean().nullish(),
  isDraft: z.boolean().nullish(),
  parentFolderId: z.string().nullish(),
  internetMessageId: z.string().nullish(),
  from: recipient.nullish(),
  toRecipients: z.array(recipient).nullish(),
  flag: z.object({ flagStatus: z.string().nullish() }).nullish(),
  body: z.object({ contentType: z.string().nullish(), content: z.string().nullish() }).nullish(),
});
export type GraphMessage = z.output<typeof messageSchema>;

export const messageListSchema = z.object({
  value: z.array(messageSchema),
  '@odata.nextLink': z.string().nullish(),
  '@odata.count': z.number().int().nonnegative().nullish(),
});

export const attachmentListSchema = z.object({
  value: z.array(
    z.object({
      '@odata.type': z.string().nullish(),
      id: z.string().min(1),
      name: z.string().nullish(),
      contentType: z.string().nullish(),
      size: z.number().int().nonnegative().nullish(),
      isInline: z.boolean().nullish(),
    }),
  ),
  '@odata.nextLink': z.string().nullish(),
});

export const userSchema = z.object({ mail: z.string().nullish(), userPrincipalName: z.string().nullish() });
export const folderSchema = z.object({ id: z.string().min(1) });
/** 202 Accepted (send) and 204 No Content (nothing to read). */
export const noContent = z.unknown();

/** The properties every listed message is read with: the summary's, and what the Hub checks itself. */
export const SUMMARY_FIELDS = [
  'id',
  'conversationId',
  'subject',
  'bodyPreview',
  'receivedDateTime',
  'hasAttachments',
  'isRead',
  'isDraft',
  'parentFolderId',
  'internetMessageId',
  'from',
  'toRecipients',
  'flag',
].join(',');
