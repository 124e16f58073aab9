import { type Client, RetryHandlerOptions } from '@microsoft/microsoft-graph-client';
import { type Harness, expectNoViolations, graphClient, seedPeople, startHarness, tokenFor } from './support';

/**
 * What makes Graph unpleasant, reproduced and asserted: Outlook's per app+mailbox throttling, injected
 * 503/504 with Retry-After (and the Graph client's own retry honouring it), apply-then-fail, dropped
 * connections, and writes that are not yet visible where a client looks next.
 */

let h: Harness;
let ana: Client;
let anaToken: string;
const noRetry = () => [new RetryHandlerOptions(0, 0)];
beforeAll(async () => {
  h = await startHarness();
  await seedPeople(h);
  anaToken = await tokenFor(h, 'ana@contoso.example');
  ana = graphClient(h, anaToken);
});
afterEach(async () => {
  await h.control('DELETE', '/faults');
  await h.control('PUT', '/throttling', { preset: 'outlook' });
});
afterAll(async () => {
  expectNoViolations(h);
  await h.close();
});

const get = (path: string, token = anaToken) => fetch(`${h.running.url}/v1.0${path}`, { headers: { authorization: `Bearer ${token}` } });

test('when an app spends its request budget on one mailbox, then 429 ApplicationThrottled with Retry-After — for that mailbox only, until the window passes', async () => {
  expect((await h.control('PUT', '/throttling', { preset: 'tight' })).body.limits).toEqual({
    requestsPerWindow: 20,
    windowS: 600,
    concurrent: 4,
    uploadBytes: 1048576,
    uploadWindowS: 300,
  });
  for (let i = 0; i < 20; i++) expect((await get('/me')).status).toBe(200);
  const over = await get('/me');
  expect(over.status).toBe(429);
  expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(590);
  expect(((await over.json()) as any).error).toMatchObject({ code: 'ApplicationThrottled', innerError: { 'request-id': over.headers.get('request-id') } });
  expect((await get('/me', await tokenFor(h, 'ben@contoso.example'))).status).toBe(200); // another mailbox
  // Throttled requests count too: waiting out the window is the only way back.
  await h.control('POST', '/clock/advance', { seconds: 601 });
  expect((await get('/me')).status).toBe(200);
});

test('when an app uploads more than its byte budget to a mailbox in five minutes, then 429 IncomingBytes until the window passes', async () => {
  await h.control('PUT', '/throttling', { requests_per_window: 10_000, window_s: 600, concurrent: 4, upload_bytes: 1_000_000, upload_window_s: 300 });
  const attachment = {
    '@odata.type': '#microsoft.graph.fileAttachment',
    name: 'scan.bin',
    contentType: 'application/octet-stream',
    contentBytes: Buffer.alloc(300_000, 7).toString('base64'),
  };
  const draft = () =>
    ana
      .api('/me/messages')
      .middlewareOptions(noRetry())
      .post({ subject: 'Scans', attachments: [attachment] });
  await draft();
  await draft(); // ~800 kB of JSON so far
  await expect(draft()).rejects.toMatchObject({ statusCode: 429, code: 'ApplicationThrottled', message: 'Application is over its IncomingBytes limit.' });
  expect((await get('/me')).status).toBe(200); // reads are not uploads
  await h.control('POST', '/clock/advance', { seconds: 301 });
  await draft();
});

test('when a fifth request reaches a mailbox while four are in flight, then 429 MailboxConcurrency', async () => {
  await h.control('POST', '/faults', { operation: 'user.get', latency_ms: 400 });
  const statuses = await Promise.all(Array.from({ length: 5 }, () => get('/me').then(async (r) => ({ status: r.status, body: (await r.json()) as any }))));
  const throttled = statuses.filter((s) => s.status === 429);
  expect(throttled).toHaveLength(1);
  expect(throttled[0]!.body.error.message).toBe('Application is over its MailboxConcurrency limit.');
  expect(statuses.filter((s) => s.status === 200)).toHaveLength(4);
});

test('when a client gives up on a slow request, then the request still holds its concurrency slot until the mailbox has processed it', async () => {
  await h.control('PUT', '/throttling', { requests_per_window: 10_000, window_s: 600, concurrent: 1 });
  await h.control('POST', '/faults', { operation: 'user.get', latency_ms: 400, times: 1 });
  await expect(fetch(`${h.running.url}/v1.0/me`, { headers: { authorization: `Bearer ${anaToken}` }, signal: AbortSignal.timeout(50) })).rejects.toThrow();
  const meanwhile = await get('/me');
  expect(meanwhile.status).toBe(429);
  expect(((await meanwhile.json()) as any).error.message).toBe('Application is over its MailboxConcurrency limit.');
  await new Promise((r) => setTimeout(r, 500));
  expect((await get('/me')).status).toBe(200);
});

test('when an upload comes chunked, without a Content-Length, then its bytes count against the upload budget all the same', async () => {
  await h.control('PUT', '/throttling', { requests_per_window: 10_000, window_s: 600, concurrent: 4, upload_bytes: 100_000, upload_window_s: 300 });
  const body = JSON.stringify({ subject: 'Chunked', body: { contentType: 'text', content: 'x'.repeat(60_000) } });
  const chunked = () =>
    fetch(`${h.running.url}/v1.0/me/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${anaToken}`, 'content-type': 'application/json' },
      body: new Blob([body]).stream(),
      duplex: 'half',
    } as RequestInit);
  expect((await chunked()).status).toBe(201);
  const over = await chunked();
  expect(over.status).toBe(429);
  expect(((await over.json()) as any).error.message).toBe('Application is over its IncomingBytes limit.');
});

test('when Graph answers 503 with Retry-After, then the Graph client’s own retry handler waits and succeeds', async () => {
  await h.control('POST', '/faults', { operation: 'user.get', preset: 'serviceUnavailable', retry_after_s: 1, times: 1 });
  const before = h.sandbox.world.requestLog.length;
  const started = Date.now();
  expect((await ana.api('/me').get()).userPrincipalName).toBe('ana@contoso.example');
  expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  expect(h.sandbox.world.requestLog.slice(before).map((r) => r.status)).toEqual([503, 200]);
  await h.control('POST', '/faults', { operation: 'user.get', preset: 'gatewayTimeout', times: 1 });
  await expect(ana.api('/me').middlewareOptions(noRetry()).get()).rejects.toMatchObject({ statusCode: 504 });
});

test('when the gateway times out (504), then no Retry-After comes with it, as Graph documents none', async () => {
  await h.control('POST', '/faults', { operation: 'user.get', preset: 'gatewayTimeout', times: 1 });
  const res = await get('/me');
  expect(res.status).toBe(504);
  expect(res.headers.get('retry-after')).toBeNull();
  await h.control('POST', '/faults', { operation: 'user.get', preset: 'serviceUnavailable', times: 1 });
  expect((await get('/me')).headers.get('retry-after')).toBe('10');
});

test('when sendMail fails after it applied, then the client sees 504 but the mail went out — a blind retry sends it twice', async () => {
  await h.control('PUT', '/consistency', { delivery_delay_ms: 0, sent_items_delay_ms: 0 });
  await h.control('POST', '/faults', { operation: 'mail.send', preset: 'gatewayTimeout', apply_first: true, times: 1 });
  const message = {
    message: {
      subject: 'Invoice 42',
      body: { contentType: 'Text', content: 'Attached.' },
      toRecipients: [{ emailAddress: { address: 'ben@contoso.example' } }],
    },
  };
  await expect(ana.api('/me/sendMail').middlewareOptions(noRetry()).post(message)).rejects.toMatchObject({ statusCode: 504 });
  await ana.api('/me/sendMail').post(message);
  const ben = graphClient(h, await tokenFor(h, 'ben@contoso.example'));
  expect((await ben.api('/me/messages').filter("subject eq 'Invoice 42'").get()).value).toHaveLength(2);
});

test('when a fault drops the connection, then the client gets a network error and no answer', async () => {
  await h.control('POST', '/faults', { path: '/me/events', method: 'GET', drop: true, times: 1 });
  await expect(get('/me/events')).rejects.toThrow();
  expect((await get('/me/events')).status).toBe(200);
});

test('when an event was just created, then calendarView and getSchedule do not show it yet, though a get by id does', async () => {
  await h.control('PUT', '/consistency', { new_event_delay_ms: 1500 });
  const e = await ana
    .api('/me/events')
    .post({ subject: 'Fresh', start: { dateTime: '2026-04-01T10:00:00', timeZone: 'UTC' }, end: { dateTime: '2026-04-01T11:00:00', timeZone: 'UTC' } });
  expect((await ana.api(`/me/events/${e.id}`).get()).subject).toBe('Fresh');
  const view = () => ana.api('/me/calendarView').query({ startDateTime: '2026-04-01T00:00:00Z', endDateTime: '2026-04-02T00:00:00Z' }).get();
  expect((await view()).value).toEqual([]);
  const schedule = () =>
    ana.api('/me/calendar/getSchedule').post({
      schedules: ['ana@contoso.example'],
      startTime: { dateTime: '2026-04-01T10:00:00', timeZone: 'UTC' },
      endTime: { dateTime: '2026-04-01T11:00:00', timeZone: 'UTC' },
      availabilityViewInterval: 60,
    });
  expect((await schedule()).value[0].availabilityView).toBe('0');
  await h.control('POST', '/clock/advance', { seconds: 2 });
  expect((await schedule()).value[0].availabilityView).toBe('2');
  expect((await view()).value.map((x: any) => x.subject)).toEqual(['Fresh']);
});

test('when faults are misdescribed, then the control API says what is wrong; presets are listed', async () => {
  const bad = await h.control('POST', '/faults', { preset: 'serviceUnavailable' });
  expect(bad.status).toBe(400);
  expect(bad.body.error.message).toContain('give operation or path');
  expect((await h.control('GET', '/faults')).body.presets).toEqual(
    expect.arrayContaining(['mailboxConcurrency', 'serviceUnavailable', 'gatewayTimeout', 'tokenExpired']),
  );
  await h.control('POST', '/faults', { operation: 'events.list', status: 409, code: 'ErrorIrresolvableConflict', message: 'x', times: 1 });
  await expect(ana.api('/me/events').get()).rejects.toMatchObject({ statusCode: 409, code: 'ErrorIrresolvableConflict' });
});

test('when a mailbox passes Exchange’s sending limits, then mail over 30 a minute arrives late and recipients over 10,000 a day are refused', async () => {
  await h.control('PUT', '/throttling', { preset: 'off' });
  await h.control('PUT', '/consistency', { delivery_delay_ms: 0, sent_items_delay_ms: 0 });
  // Fresh tokens per call: the clock moves a day below.
  const chen = graphClient(h, () => tokenFor(h, 'chen@contoso.example'));
  const send = (subject: string, to: string[]) =>
    chen
      .api('/me/sendMail')
      .post({ message: { subject, body: { contentType: 'Text', content: '.' }, toRecipients: to.map((address) => ({ emailAddress: { address } })) } });
  for (let i = 0; i < 31; i++) await send(`Rate ${i}`, ['ben@contoso.example']);
  const ben = graphClient(h, () => tokenFor(h, 'ben@contoso.example'));
  const arrived = async () => (await ben.api('/me/messages').search('"subject:Rate"').top(100).get()).value.length;
  expect(await arrived()).toBe(30); // the 31st is carried over to a following minute
  await h.control('POST', '/clock/advance', { seconds: 61 });
  expect(await arrived()).toBe(31);
  const crowd = Array.from({ length: 500 }, (_, i) => `r${i}@elsewhere.example`);
  await h.control('POST', '/clock/advance', { seconds: 86_401 });
  for (let i = 0; i < 20; i++) await send(`Crowd ${i}`, crowd);
  await expect(send('One too many', ['ben@contoso.example'])).rejects.toMatchObject({ statusCode: 403, code: 'ErrorSubmissionQuotaExceeded' });
});

test('when a body is not JSON or a path is not Graph’s, then Graph’s error shape answers, never a stack trace', async () => {
  const post = await fetch(`${h.running.url}/v1.0/me/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${anaToken}`, 'content-type': 'application/json' },
    body: '{"subject": ',
  });
  expect(post.status).toBe(400);
  expect(((await post.json()) as any).error).toMatchObject({ code: 'BadRequest', message: expect.stringContaining('Unable to read JSON request payload') });
  const odd = await get('/me/teleporters');
  expect(odd.status).toBe(400);
  expect(((await odd.json()) as any).error).toMatchObject({
    code: 'BadRequest',
    message: "Resource not found for the segment 'teleporters'.",
    innerError: { 'request-id': odd.headers.get('request-id') },
  });
  const stranger = await get('/users/nobody@contoso.example/messages', await tokenFor(h, 'ana@contoso.example')); // the clock moved on
  expect(stranger.status).toBe(404);
  expect(((await stranger.json()) as any).error.code).toBe('ErrorInvalidUser');
});
