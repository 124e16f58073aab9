import pino from 'pino';
import type { MailPort } from '../../src/core/mail';
import type { VendorCall } from '../../src/core/vendor-call';
import { fail, ok } from '../../src/core/errors';
import { classifyGraphError } from '../../src/providers/microsoft/graph-errors';
import { type GraphMailDeps, createGraphMail } from '../../src/providers/microsoft/mail-graph';
import { type HtmlConverter, createHtmlConverter } from '../../src/tools/email/html-text';
import { createToolCache } from '../../src/tools/tool-cache';
import { DEMO, GRAPH_SCOPES_ALL, type MicrosoftWorld, startMicrosoftWorld } from './microsoft';

/**
 * The Outlook mail adapter against the Microsoft sandbox: the demo tenant populated around a fixed instant (so
 * dates in queries mean the same every run), the Hub's own HTML converter, and one adapter per call as the Hub
 * makes them. Ana's mailbox holds the demo mail (mail-world.ts in the sandbox) plus what `seedAnaMail` adds.
 */

/** Wednesday 11 March 2026, noon UTC: the demo week's Monday is the 9th. */
export const NOW = Date.parse('2026-03-11T12:00:00Z');

export interface MailWorld extends MicrosoftWorld {
  html: HtmlConverter;
  /** An adapter for one tool call of `upn`. */
  mail: (upn: string, options?: AdapterOptions) => MailPort;
  /** Requests sent to Graph by adapters made with `countAttempts` since the last reset. */
  attempts: { count: number };
}

export interface AdapterOptions {
  scopes?: readonly string[];
  now?: () => number;
  sentItemsSettleMs?: number;
  deadline?: AbortSignal;
  maxBodyChars?: number;
}

export const silentLogger = pino({ level: 'silent' });

/**
 * The world's single-attempt VendorCall, with one difference that only a test needs: jest runs test code in a
 * VM context, so the TypeError Node's fetch throws for a dropped connection comes from another realm and fails
 * the classifier's `instanceof TypeError`. It is re-made in this realm — as production, with one realm, sees it.
 */
function sameRealmCall(world: MicrosoftWorld, upn: string, scopes: readonly string[], onAttempt: () => void): VendorCall {
  let pending: Promise<string> | undefined;
  return async (op, fn) => {
    pending ??= world.token(upn, scopes);
    const accessToken = await pending;
    onAttempt();
    try {
      return ok(await fn(AbortSignal.timeout(10_000), accessToken));
    } catch (thrown) {
      const foreign = thrown as { name?: unknown; message?: unknown; cause?: unknown } | null;
      const err =
        !(thrown instanceof TypeError) && foreign?.name === 'TypeError' && foreign.message === 'fetch failed'
          ? new TypeError('fetch failed', { cause: foreign.cause })
          : thrown;
      const failure = classifyGraphError(err, { operation: op.operation });
      if (!failure) throw thrown;
      return fail(failure.error);
    }
  };
}

export async function startMailWorld(): Promise<MailWorld> {
  const world = await startMicrosoftWorld({ now: new Date(NOW) });
  const html = createHtmlConverter({ workers: 1, taskTimeoutMs: 2_000, callBudgetMs: 10_000 });
  const attempts = { count: 0 };
  const mail = (upn: string, options: AdapterOptions = {}) => {
    const scopes = options.scopes ?? GRAPH_SCOPES_ALL;
    const deadline = options.deadline ?? AbortSignal.timeout(30_000);
    const deps: GraphMailDeps = {
      call: sameRealmCall(world, upn, scopes, () => attempts.count++),
      graphUrl: world.graphUrl,
      cache: createToolCache(),
      connection: { credentialId: `cred-${upn}`, accountEmail: upn, scopes },
      deadline,
      now: options.now ?? (() => NOW),
      logger: silentLogger,
      htmlToText: html.forCall({ key: upn, deadline: () => deadline, logger: () => silentLogger }),
      maxBodyChars: options.maxBodyChars ?? 20_000,
      ...(options.sentItemsSettleMs !== undefined ? { sentItemsSettleMs: options.sentItemsSettleMs } : {}),
    };
    return createGraphMail(deps);
  };
  return {
    ...world,
    html,
    mail,
    attempts,
    close: async () => {
      await html.close();
      await world.close();
    },
  };
}

const person = (upn: string, name: string) => ({ address: upn, name });
export const ANA = person(DEMO.ana, 'Ana Lima');
export const BEN = person(DEMO.ben, 'Ben Okafor');
export const CHEN = person(DEMO.chen, 'Chen Wei');

/** Mail beside the demo's: one Ana sent with a Bcc, and one each in Drafts, Deleted Items and Junk Email. */
export async function seedAnaMail(world: MicrosoftWorld): Promise<void> {
  const seeds = [
    {
      from: ANA,
      to: [CHEN],
      bcc: [BEN],
      subject: 'Budget heads-up',
      text: 'Spending is tight this quarter',
      received: '2026-03-05T10:00:00Z',
      folder: 'sentitems',
      is_read: true,
    },
    { from: ANA, to: [BEN], subject: 'Draft idea', text: 'Maybe a retreat?', received: '2026-03-03T09:00:00Z', folder: 'drafts', is_read: true },
    {
      from: { address: 'news@elsewhere.example', name: 'News' },
      to: [ANA],
      subject: 'Old newsletter',
      text: 'A recap of the quarter',
      received: '2026-03-04T08:00:00Z',
      folder: 'deleteditems',
    },
    {
      from: { address: 'prize@elsewhere.example', name: 'Prize' },
      to: [ANA],
      subject: 'You won a prize',
      text: 'Claim now',
      received: '2026-03-04T09:00:00Z',
      folder: 'junkemail',
    },
  ];
  for (const seed of seeds) {
    const made = await world.control('POST', `/accounts/${DEMO.ana}/messages`, seed);
    if (made.status !== 201) throw new Error(`seeding ${seed.subject}: ${made.status} ${JSON.stringify(made.body)}`);
  }
}
