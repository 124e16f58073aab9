import { z } from 'zod';

/**
 * What the email tools accept from Gmail, checked before anything is read from it. Lenient where Google is
 * (unknown fields are ignored, absent repeated fields are optional) but strict on what the tools rely on: ids
 * present, internalDate a millisecond timestamp, parts shaped like MessagePart.
 */

export interface GmailHeader {
  name: string;
  value: string;
}

export interface GmailPart {
  partId?: string | null | undefined;
  mimeType?: string | null | undefined;
  filename?: string | null | undefined;
  headers?: GmailHeader[] | null | undefined;
  body?: { attachmentId?: string | null | undefined; size?: number | null | undefined; data?: string | null | undefined } | null | undefined;
  parts?: GmailPart[] | null | undefined;
}

const headerSchema = z.object({ name: z.string(), value: z.string() });

export const partSchema: z.ZodType<GmailPart> = z.lazy(() =>
  z.object({
    partId: z.string().nullish(),
    mimeType: z.string().nullish(),
    filename: z.string().nullish(),
    headers: z.array(headerSchema).nullish(),
    body: z.object({ attachmentId: z.string().nullish(), size: z.number().int().min(0).nullish(), data: z.string().nullish() }).nullish(),
    parts: z.array(partSchema).nullish(),
  }),
);

const id = z.string().min(1);

export const messageSchema = z.object({
  id,
  threadId: id,
  labelIds: z.array(z.string()).nullish(),
  snippet: z.string().nullish(),
  internalDate: z.string().regex(/^\d{1,16}$/),
  payload: partSchema.nullish(),
});
export type GmailMessage = z.infer<typeof messageSchema>;

export const listSchema = z.object({
  messages: z.array(z.object({ id, threadId: id.nullish() })).nullish(),
  nextPageToken: z.string().nullish(),
  resultSizeEstimate: z.number().nullish(),
});

export const threadSchema = z.object({ id, messages: z.array(messageSchema).nullish() });

export const profileSchema = z.object({ emailAddress: z.string().min(3) });

/** messages.send and messages.modify answer with the message's ids. */
export const messageRefSchema = z.object({ id, threadId: id });

export const attachmentBodySchema = z.object({ data: z.string().nullish(), size: z.number().nullish() });

/** A header's value by case-insensitive name (the first one, as mail readers do). */
export function headerOf(part: GmailPart | null | undefined, name: string): string | undefined {
  const wanted = name.toLowerCase();
  return part?.headers?.find((h) => h.name.toLowerCase() === wanted)?.value;
}
