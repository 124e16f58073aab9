import { z } from 'zod';

/** The fields email_search and email_read results share (schemas for the catalog), in the contract's order. */
export const messageFields = {
  message_id: z.string(),
  thread_id: z.string(),
  from: z.string().describe('Sender address.'),
  to: z.array(z.string()).describe('Recipient addresses (To).'),
  subject: z.string(),
};
export const dateField = z.string().describe('When the mailbox received it, ISO 8601 UTC.');
export const truncatedField = z.literal(true).optional().describe('Present when the body was cut to the size limit.');
export const bodyDegradedField = z
  .literal(true)
  .optional()
  .describe('Present when an HTML body could not be laid out as text in time (or nests too deeply): the body is its text with the tags stripped.');
