import { z } from 'zod';
import { fail, hubError, ok } from '../../src/core/errors';
import { connectionFactKey } from '../../src/tools/tool-cache';
import { defineTool } from '../../src/tools/types';

/**
 * Tools that exist only in tests, to drive the pipeline paths no shipped tool reaches yet (integration
 * lookup, crashes). They go through the very same registry, validation and envelope as real tools.
 */

export const calendarProbe = defineTool({
  name: 'test_calendar_probe',
  version: '1.0.0',
  description: 'Test tool: reports which Google Calendar connection the Hub resolved.',
  capability: 'calendar',
  permissions: ['calendar.write'],
  sideEffects: 'reads',
  input: z.strictObject({}),
  output: z.object({ email: z.string().nullable(), source: z.string(), token_length: z.number() }),
  run: async (ctx) => {
    ctx.countApiCall();
    const token = await ctx.connection!.accessToken(ctx.deadline);
    if (!token.ok) return token;
    return ok({ email: ctx.connection!.accountEmail, source: ctx.connection!.source, token_length: token.value.length });
  },
});

export const crashingTool = defineTool({
  name: 'test_crash',
  version: '1.0.0',
  description: 'Test tool: throws, as a bug would.',
  capability: null,
  permissions: [],
  sideEffects: 'reads',
  input: z.strictObject({}),
  output: z.object({}),
  run: async () => {
    throw new Error('boom: internal detail that must not reach the caller');
  },
});

/** Logs its token every careless way, then fails the way an HTTP client error carrying headers would. */
export const leakyTool = defineTool({
  name: 'test_leaky',
  version: '1.0.0',
  description: 'Test tool: tries hard to leak its access token into the logs.',
  capability: 'calendar',
  permissions: ['calendar.read'],
  sideEffects: 'reads',
  input: z.strictObject({}),
  output: z.object({}),
  run: async (ctx) => {
    const answer = await ctx.connection!.accessToken(ctx.deadline);
    if (!answer.ok) return answer;
    const token = answer.value;
    ctx.logger.info({ access_token: token, credentials: { refreshToken: token, token } }, 'calling google');
    ctx.logger.info(`raw header Authorization: Bearer ${token}`);
    const err = Object.assign(new Error(`request failed for ${token}`), {
      config: { headers: { Authorization: `Bearer ${token}` } },
      response: { data: { access_token: token } },
    });
    throw err;
  },
});

export const slowTool = defineTool({
  name: 'test_slow',
  version: '1.0.0',
  description: 'Test tool: answers after the given delay.',
  capability: null,
  permissions: [],
  sideEffects: 'reads',
  input: z.strictObject({ delay_ms: z.number().int().min(0).max(10_000) }),
  output: z.object({ waited_ms: z.number() }),
  run: async (_ctx, { delay_ms }) => {
    await new Promise((r) => setTimeout(r, delay_ms));
    return ok({ waited_ms: delay_ms });
  },
});

/** How many times the write tool really ran, per tag: idempotency tests count side effects with it. */
export const writeCounts = new Map<string, number>();

export const writeTool = defineTool({
  name: 'test_write',
  version: '1.0.0',
  description: 'Test tool with a side effect: counts its runs per tag; can be slow or fail.',
  capability: null,
  permissions: [],
  sideEffects: 'writes',
  destructive: false,
  input: z.strictObject({
    tag: z.string().min(1),
    delay_ms: z.number().int().min(0).max(10_000).optional(),
    fail: z.enum(['retryable', 'permanent']).optional(),
  }),
  output: z.object({ tag: z.string(), run: z.number() }),
  run: async (_ctx, { tag, delay_ms, fail: failure }) => {
    if (delay_ms) await new Promise((r) => setTimeout(r, delay_ms));
    const run = (writeCounts.get(tag) ?? 0) + 1;
    writeCounts.set(tag, run);
    if (failure === 'retryable') return fail(hubError('EXTERNAL_API_ERROR', 'upstream hiccup', { retryable: true }));
    if (failure === 'permanent') return fail(hubError('RESOURCE_NOT_FOUND', 'no such thing'));
    return ok({ tag, run });
  },
});

/**
 * Reads the account's time zone from Google (the sandbox) through the calendar port, as real tools do — asking
 * Google every time (the port memoises the zone per connection; this tool forgets it first), so each call makes
 * one request and exercises the token's refresh.
 */
export const calendarTimezone = defineTool({
  name: 'test_calendar_timezone',
  version: '1.0.0',
  description: "Test tool: reads the connected calendar's time zone from Google.",
  capability: 'calendar',
  permissions: ['calendar.read'],
  sideEffects: 'reads',
  input: z.strictObject({}),
  output: z.object({ time_zone: z.string() }),
  run: async (ctx) => {
    ctx.cache.forget(connectionFactKey(ctx.connection!, 'calendar:timezone'));
    const zone = await ctx.calendar.timeZone();
    return zone.ok ? ok({ time_zone: zone.value }) : zone;
  },
});

export const TEST_TOOLS = [calendarProbe, crashingTool, leakyTool, slowTool, writeTool, calendarTimezone];
