import addressparser from 'nodemailer/lib/addressparser';
import { z } from 'zod';

/**
 * Email addresses in and out of the email tools: what an agent may put in To/Cc/Bcc (one address per entry,
 * optionally with a display name), and the bare addresses read back from Gmail's (already RFC 2047-decoded)
 * From/To header values.
 */

export interface Mailbox {
  name: string;
  address: string;
}

const emailAddress = z.email();

/** CR or LF in a header value would end the header and start another: the classic header injection. */
const LINE_BREAK = /[\r\n]/;
/** Other C0 controls (tab aside) and DEL have no business in a header value either. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Why a header value (subject, name, address) is unsafe to put in a header, or undefined when it is fine. */
export function headerValueProblem(value: string): string | undefined {
  if (LINE_BREAK.test(value)) return 'must not contain line breaks (CR/LF)';
  if (CONTROL.test(value)) return 'must not contain control characters';
  return undefined;
}

export type ParsedRecipient = { ok: true; mailbox: Mailbox } | { ok: false; message: string };

/**
 * One recipient as an agent writes it: `ana@acme.example` or `Ana García <ana@acme.example>`. Exactly one
 * address (no lists, no groups), syntactically valid, and nothing that could break out of the header.
 */
export function parseRecipient(value: string): ParsedRecipient {
  const unsafe = headerValueProblem(value);
  if (unsafe) return { ok: false, message: unsafe };
  const parsed = addressparser(value);
  if (parsed.length !== 1) return { ok: false, message: 'must hold exactly one email address' };
  const only = parsed[0]!;
  if ('group' in only) return { ok: false, message: 'address groups are not supported' };
  if (!emailAddress.safeParse(only.address).success) return { ok: false, message: 'is not a valid email address' };
  return { ok: true, mailbox: { name: only.name, address: only.address } };
}

/**
 * The addresses of an address header as Gmail returns it (decoded text). Entries without a valid address
 * (a decoded display name holding a comma can split into such fragments) are dropped.
 */
export function headerAddresses(value: string | undefined): string[] {
  if (!value) return [];
  return addressparser(value, { flatten: true })
    .map((a) => a.address)
    .filter((a) => emailAddress.safeParse(a).success);
}

export const sameAddress = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
