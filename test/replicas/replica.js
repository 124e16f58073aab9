// One Hub replica for the multi-replica test: the real, compiled Hub (dist/) with every built-in tool plus
// `test_create_event`, a write that behaves as a production calendar tool must to survive retries and crashes:
// its event's dedup key is derived from (customer, request_id), so a repeated insert is Google's 409, not a copy.
// Plain JavaScript so it runs from the build without a TypeScript loader. Reports its port over IPC.
'use strict';
const { createHash } = require('node:crypto');
const { z } = require('zod');
const { loadConfigOrExit } = require('../../dist/src/config');
const { ok } = require('../../dist/src/core/errors');
const { exitOnStartFailure, startHub, stopOnSignals } = require('../../dist/src/server');
const { BUILT_IN_TOOLS } = require('../../dist/src/tools');
const { defineTool } = require('../../dist/src/tools/types');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const createEvent = defineTool({
  name: 'test_create_event',
  version: '1.0.0',
  description: 'Test tool: creates a calendar event exactly once per request_id.',
  capability: 'calendar',
  permissions: ['calendar.write'],
  sideEffects: 'writes',
  destructive: false,
  input: z.strictObject({
    summary: z.string(),
    start: z.string(),
    end: z.string(),
    delay_before_ms: z.number().int().min(0).optional(),
    delay_after_ms: z.number().int().min(0).optional(),
  }),
  output: z.object({ id: z.string(), created: z.boolean() }),
  async run(ctx, input) {
    // 32 hex characters are 32 base32hex ones (0-9a-v): the calendar port's dedupKey, which Google's adapter uses
    // as the event id, so a repeat on any replica meets Google's 409 and is answered as `replayed`.
    const dedupKey = createHash('sha256').update(`${ctx.customerId}\0${ctx.requestId}`).digest('hex').slice(0, 32);
    if (input.delay_before_ms) await sleep(input.delay_before_ms);
    const made = await ctx.calendar.createEvent('primary', { title: input.summary, start: input.start, end: input.end }, { dedupKey });
    if (!made.ok) return made;
    if (input.delay_after_ms) await sleep(input.delay_after_ms);
    // replayed: an earlier attempt (maybe on a replica that died) already created it
    return ok({ id: made.value.event.id, created: !made.value.replayed });
  },
});

startHub(loadConfigOrExit(), { tools: [...BUILT_IN_TOOLS, createEvent] }).then((hub) => {
  stopOnSignals(hub);
  process.send?.({ port: hub.port });
}, exitOnStartFailure('replica failed to start'));
