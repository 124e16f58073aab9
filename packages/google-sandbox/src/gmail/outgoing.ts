import type { ApiResult } from '../api/types';
import { ALPHABETS, type SandboxRandom } from '../random';
import type { Account } from '../world';
import { formatMailDate, utcOffsetMinutes } from './dates';
import { invalidArgument } from './errors';
import { type EmailAddress, formatAddress, parseAddressList, sameAddress } from './mime/addresses';
import { type RawField, findField, joinHeaders, rawValue, splitHeaders, toCrlf } from './mime/headers';

/** A message being sent, after Gmail's checks and header fix-ups. Strings are binary (latin1). */
export interface Outgoing {
  fields: RawField[];
  body: string;
  /** Every envelope recipient (To, Cc, Bcc), deduplicated by address. */
  recipients: EmailAddress[];
}

const field = (name: string, value: string): RawField => ({ name, raw: `${name}: ${value}` });

/**
 * Validates a raw message for messages.send and applies what Gmail's outgoing path does: From becomes the
 * sending account (its display name kept when the address already matches), Date and MIME-Version are added
 * when absent, and the Message-ID is always Gmail's own — a client-set one does not survive messages.send
 * (gauteh/lieer#198: "sending with smtp preserves message-IDs and sending via the API creates new ones";
 * huacnlee/omamail#85: "Gmail rewrites the Message-ID on its own path"), so nothing may rely on finding it,
 * e.g. with `rfc822msgid:`. Other headers, custom X- ones included, are kept as sent: no report of Gmail
 * dropping one was found, and senders rely on X- headers reaching Gmail (Resend's docs: X-Entity-Ref-ID to stop
 * Gmail threading). Line ends become CRLF.
 */
export function prepareOutgoing(raw: Buffer, account: Account, now: number, random: SandboxRandom): Outgoing | ApiResult {
  const { fields, body } = splitHeaders(toCrlf(raw.toString('latin1')));
  if (!fields.length) return invalidArgument('Invalid raw message');

  const recipients = new Map<string, EmailAddress>();
  for (const name of ['to', 'cc', 'bcc']) {
    for (const f of fields.filter((f) => f.name.toLowerCase() === name)) {
      const { addresses, invalid } = parseAddressList(rawValue(f));
      // Gmail's wording, lowercase header name included: "Invalid to header".
      if (invalid) return invalidArgument(`Invalid ${name} header`);
      for (const a of addresses) if (!recipients.has(a.address.toLowerCase())) recipients.set(a.address.toLowerCase(), a);
    }
  }
  if (!recipients.size) return invalidArgument('Recipient address required');

  const fromField = findField(fields, 'from');
  const from = fromField ? parseAddressList(rawValue(fromField)).addresses : [];
  let out = fields;
  if (!(from.length === 1 && sameAddress(from[0]!.address, account.email))) {
    const replacement = field('From', formatAddress({ name: account.name, address: account.email }));
    const at = fromField ? fields.indexOf(fromField) : fields.length;
    out = fields.filter((f) => f.name.toLowerCase() !== 'from');
    out.splice(Math.min(at, out.length), 0, replacement);
  }
  const added: RawField[] = [];
  if (!findField(out, 'mime-version')) added.push(field('MIME-Version', '1.0'));
  if (!findField(out, 'date')) added.push(field('Date', formatMailDate(now, utcOffsetMinutes(now, account.timeZone))));
  out = out.filter((f) => f.name.toLowerCase() !== 'message-id');
  added.push(field('Message-ID', `<CA${random.string(44, ALPHABETS.alnum)}@mail.gmail.com>`));
  return { fields: [...added, ...out], body, recipients: [...recipients.values()] };
}

export function senderCopy(out: Outgoing): string {
  return joinHeaders(out.fields, out.body);
}

/** What leaves the sender: the same message without its Bcc header. */
export function wireCopy(out: Outgoing): string {
  return joinHeaders(withoutBcc(out.fields), out.body);
}

/** A recipient's copy: Bcc stripped, and the trace headers Gmail's delivery prepends. */
export function deliveredCopy(out: Outgoing, recipient: string, date: string): string {
  const trace = [field('Delivered-To', recipient), field('Received', `from 0 named unknown by gmailapi.google.com with HTTPREST; ${date}`)];
  return joinHeaders([...trace, ...withoutBcc(out.fields)], out.body);
}

const withoutBcc = (fields: readonly RawField[]) => fields.filter((f) => f.name.toLowerCase() !== 'bcc');
