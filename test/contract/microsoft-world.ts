import pino from 'pino';
import { createGraphCalendar } from '../../src/providers/microsoft/calendar';
import { createGraphMail } from '../../src/providers/microsoft/mail-graph';
import { createHtmlConverter } from '../../src/tools/email/html-text';
import { createMemoryRecentWrites } from '../../src/store/recent-writes-memory';
import { createToolCache } from '../../src/tools/tool-cache';
import { GRAPH_SCOPES_ALL, startMicrosoftWorld } from '../helpers/microsoft';
import type { FaultKind, FaultedOperation, ProviderFactory, ProviderWorld } from './provider-world';

/** The Microsoft provider (Graph adapters) against the Microsoft sandbox (packages/microsoft-sandbox). */

const DOMAIN = 'contoso.example';
const silent = pino({ level: 'silent' });

const OPERATIONS: Record<FaultedOperation, string> = {
  'event.get': 'events.get',
  'event.create': 'events.create',
  'mail.search': 'messages.list',
  'mail.send': 'messages.send',
};

/** Each family as Graph answers it (learn.microsoft.com/graph/errors). */
const FAULTS: Record<FaultKind, Record<string, unknown>> = {
  rate_limited: { preset: 'mailboxConcurrency' },
  server_error: { preset: 'internalError' },
  token_rejected: { preset: 'tokenExpired' },
  permission_denied: { preset: 'accessDenied' },
};

export const microsoftProvider: ProviderFactory = {
  name: 'Microsoft',
  async start(): Promise<ProviderWorld> {
    const world = await startMicrosoftWorld();
    const html = createHtmlConverter({ workers: 1, taskTimeoutMs: 2_000, callBudgetMs: 10_000 });
    const cache = createToolCache();
    const recent = createMemoryRecentWrites();
    const must = async (method: string, path: string, body?: unknown) => {
      const res = await world.control(method, path, body);
      if (res.status >= 300) throw new Error(`sandbox ${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const base = (upn: string) => ({
      call: world.callFor(upn, GRAPH_SCOPES_ALL),
      graphUrl: world.graphUrl,
      cache,
      recent,
      connection: { credentialId: `cred-${upn}`, accountEmail: upn, scopes: GRAPH_SCOPES_ALL },
      deadline: AbortSignal.timeout(30_000),
      now: () => world.sandbox.world.clock.now(),
      logger: silent,
    });

    return {
      async account(spec) {
        const upn = `${spec.name}@${DOMAIN}`;
        // Outlook shows free/busy to the whole organisation unless the owner narrows it: the contract's account is
        // seen by exactly the people it names, so "My Organization" is set to none and each of them gets
        // freeBusyRead (calendarPermission roles; the sandbox's graph/sharing.ts).
        await must('POST', '/accounts', {
          upn,
          time_zone: spec.timeZone,
          calendar_sharing: { my_organization: 'none', people: (spec.sharesFreeBusyWith ?? []).map((address) => ({ address, role: 'freeBusyRead' })) },
        });
        for (const e of spec.events ?? []) await must('POST', `/accounts/${upn}/events`, { subject: e.title, start: e.start, end: e.end });
        for (const m of spec.messages ?? [])
          await must('POST', `/accounts/${upn}/messages`, {
            from: { address: m.from },
            to: [{ address: upn }],
            subject: m.subject,
            text: m.text,
            received: m.date,
          });
        return upn;
      },
      nobody: () => `nobody-${Math.random().toString(36).slice(2, 8)}@${DOMAIN}`,
      calendar: (upn) => createGraphCalendar(base(upn)),
      mail(upn) {
        const deps = base(upn);
        return createGraphMail({
          ...deps,
          htmlToText: html.forCall({ key: upn, deadline: () => deps.deadline, logger: () => silent }),
          maxBodyChars: 20_000,
        });
      },
      async fault(operation, kind, options = {}) {
        await must('POST', '/faults', { operation: OPERATIONS[operation], times: 1, ...FAULTS[kind], ...(options.applied ? { apply_first: true } : {}) });
      },
      // Every answer the sandbox gave is checked against Graph's CSDL as it leaves (checkResponses): a case that
      // drew one Graph could not have given fails, as the Google world's expectFaithful does. A reset starts a
      // fresh world, so each case's answers are checked before it.
      async reset() {
        expect(world.sandbox.world.violations).toEqual([]);
        await must('POST', '/reset', {});
      },
      async close() {
        const { violations } = world.sandbox.world;
        await html.close();
        await world.close();
        expect(violations).toEqual([]);
      },
    };
  },
};
