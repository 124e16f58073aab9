import { accountKey, renderRawMessage } from '@hub/google-sandbox';
import { type GmailMessage, messageSchema } from '../../src/providers/google/gmail-schemas';
import { type Connected, connectToSandbox, runTool } from './connected';
import type { TestHub } from './hub';
import { SCOPES, type TestSandbox } from './sandbox';

/**
 * Helpers for the email tool tests: raw RFC 2822 mail written by hand (charsets, transfer encodings, nesting
 * that a composer would never produce), and Gmail's rendering of it — the very format=full MessagePart tree the
 * Google sandbox serves — so pure decoding logic is tested against what Gmail hands the tools.
 */

/** Joins header and body lines with CRLF. */
export const rfc822 = (...lines: string[]) => lines.join('\r\n');

/** base64url of a raw message given as a binary (latin1) or UTF-8 string, for sandbox `raw` seeds. */
export const seedRaw = (raw: string | Buffer, labels?: string[]) => ({
  raw: (typeof raw === 'string' ? Buffer.from(raw, 'latin1') : raw).toString('base64url'),
  ...(labels ? { labels } : {}),
});

/** The message as the sandbox's Gmail renders it (format=full), checked by the tools' own schema. */
export function gmailRendered(raw: string | Buffer, format: 'full' | 'metadata' = 'full'): GmailMessage {
  const rendered = renderRawMessage(typeof raw === 'string' ? Buffer.from(raw, 'latin1') : raw, {
    format,
    labelIds: ['INBOX', 'UNREAD'],
    internalDate: Date.parse('2024-01-10T09:30:00Z'),
  });
  return messageSchema.parse(JSON.parse(JSON.stringify(rendered)));
}

/** A header of a raw message (unfolded), read straight from the bytes. */
export function rawHeader(raw: string, name: string): string | undefined {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? '';
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const line = unfolded.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

export const ANA = { email: 'ana@acme.example', name: 'Ana García' };
export const BEN = { email: 'ben@acme.example', name: 'Ben Okafor' };

/** Ana and Ben as sandbox accounts, each connected (Gmail) for a customer of their own. */
export async function twoConnectedMailboxes(hub: TestHub, sb: TestSandbox, seed: { ana?: unknown[]; ben?: unknown[] } = {}) {
  await sb.createAccount({ ...ANA, messages: seed.ana ?? [] });
  await sb.createAccount({ ...BEN, messages: seed.ben ?? [] });
  const ana = await connectToSandbox(hub, sb, { email: ANA.email, integration: 'google_gmail' });
  const ben = await connectToSandbox(hub, sb, { email: BEN.email, integration: 'google_gmail' });
  return { ana, ben };
}

/** Runs a tool and fails the test with the whole answer when the status is not the expected one. */
export async function expectTool(hub: TestHub, who: Connected, tool: string, inputs: Record<string, unknown>, status = 200, requestId?: string) {
  const res = await runTool(hub, who, tool, inputs, requestId ? { requestId } : {});
  if (res.status !== status) throw new Error(`${tool}: expected ${status}, got ${res.status}: ${res.text}`);
  return res;
}

/** A message exactly as stored at the sandbox (format=raw), read with a token of the mailbox's owner. */
export async function rawAtSandbox(sb: TestSandbox, email: string, id: string): Promise<string> {
  const token = await sb.token(email, [SCOPES.gmailReadonly]);
  const res = await sb.google.gmail(sb.google.withAccessToken(token)).users.messages.get({ userId: 'me', id, format: 'raw' });
  return Buffer.from(res.data.raw ?? '', 'base64url').toString('latin1');
}

/** The messages in a sandbox mailbox (state, not an API call). */
export const mailboxAt = (sb: TestSandbox, email: string) => [...(sb.world.gmail.mailboxes.get(accountKey(email))?.messages.values() ?? [])];
