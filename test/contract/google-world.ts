import pino from 'pino';
import { fail, ok } from '../../src/core/errors';
import type { VendorCall } from '../../src/core/vendor-call';
import { createGoogleCalendar } from '../../src/providers/google/calendar';
import { classifyGoogleError } from '../../src/providers/google/errors';
import { createGmail } from '../../src/providers/google/gmail';
import { createHtmlConverter } from '../../src/tools/email/html-text';
import { createMemoryRecentWrites } from '../../src/store/recent-writes-memory';
import { createToolCache } from '../../src/tools/tool-cache';
import { SCOPES, startTestSandbox } from '../helpers/sandbox';
import type { FaultKind, FaultedOperation, ProviderFactory, ProviderWorld } from './provider-world';

/** The Google provider against the Google sandbox (packages/google-sandbox), built as the Hub builds it per call. */

const DOMAIN = 'acme.example';
const ALL_SCOPES = Object.values(SCOPES);
const silent = pino({ level: 'silent' });

const OPERATIONS: Record<FaultedOperation, string> = {
  'event.get': 'calendar.events.get',
  'event.create': 'calendar.events.insert',
  'mail.search': 'gmail.users.messages.list',
  'mail.send': 'gmail.users.messages.send',
};

/** Each family as Google answers it (Calendar and Gmail "Handle API errors"). */
const FAULTS: Record<FaultKind, Record<string, unknown>> = {
  rate_limited: { preset: 'rateLimitExceeded' },
  server_error: { preset: 'backendError' },
  token_rejected: {
    status: 401,
    body: { error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED', errors: [{ reason: 'authError' }] } },
  },
  permission_denied: {
    status: 403,
    body: {
      error: {
        code: 403,
        message: 'Request had insufficient authentication scopes.',
        status: 'PERMISSION_DENIED',
        errors: [{ reason: 'insufficientPermissions', domain: 'global', message: 'Insufficient Permission' }],
      },
    },
  },
};

export const googleProvider: ProviderFactory = {
  name: 'Google',
  async start(): Promise<ProviderWorld> {
    const sb = await startTestSandbox();
    const html = createHtmlConverter({ workers: 1, taskTimeoutMs: 2_000, callBudgetMs: 10_000 });
    const cache = createToolCache();
    const recent = createMemoryRecentWrites();

    /** One attempt per request, the token fetched once per adapter, failures classified as the provider does. */
    const callFor = (address: string): VendorCall => {
      let token: Promise<string> | undefined;
      return async (op, fn) => {
        token ??= sb.token(address, ALL_SCOPES);
        const accessToken = await token;
        try {
          return ok(await fn(AbortSignal.timeout(10_000), accessToken));
        } catch (err) {
          const failure = classifyGoogleError(err, { operation: op.operation });
          if (!failure) throw err;
          return fail(failure.error);
        }
      };
    };
    const base = (address: string) => {
      const deadline = AbortSignal.timeout(30_000);
      return {
        call: callFor(address),
        clients: sb.google,
        cache,
        recent,
        connection: { credentialId: `cred-${address}`, accountEmail: address, scopes: ALL_SCOPES },
        deadline,
        logger: silent,
      };
    };

    return {
      async account(spec) {
        const email = `${spec.name}@${DOMAIN}`;
        await sb.createAccount({
          email,
          time_zone: spec.timeZone,
          events: (spec.events ?? []).map((e) => ({ summary: e.title, start: e.start, end: e.end })),
          messages: (spec.messages ?? []).map((m) => ({ from: m.from, to: [email], subject: m.subject, text: m.text, date: m.date })),
          ...(spec.sharesFreeBusyWith ? { primary_shared_with: spec.sharesFreeBusyWith.map((who) => ({ email: who, role: 'freeBusyReader' })) } : {}),
        });
        return email;
      },
      nobody: () => `nobody-${Math.random().toString(36).slice(2, 8)}@${DOMAIN}`,
      calendar: (address) => createGoogleCalendar(base(address)),
      mail(address) {
        const deps = base(address);
        return createGmail({
          ...deps,
          htmlToText: html.forCall({ key: address, deadline: () => deps.deadline, logger: () => silent }),
          maxBodyChars: 20_000,
        });
      },
      async fault(operation, kind, options = {}) {
        const res = await sb.control('POST', '/faults', {
          operation: OPERATIONS[operation],
          times: 1,
          ...FAULTS[kind],
          ...(options.applied ? { apply_first: true } : {}),
        });
        if (res.status !== 201) throw new Error(`sandbox refused the fault: ${res.status} ${JSON.stringify(res.body)}`);
      },
      async reset() {
        await sb.control('POST', '/reset');
      },
      async close() {
        sb.expectFaithful();
        await html.close();
        await sb.close();
      },
    };
  },
};
