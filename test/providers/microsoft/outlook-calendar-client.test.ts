import { type AuthenticationProvider, Client, type Context, type Middleware, MiddlewareFactory } from '@microsoft/microsoft-graph-client';
import { DEMO, type MicrosoftWorld, startMicrosoftWorld } from '../../helpers/microsoft';
import { outlookCalendar } from './outlook-calendar';

/**
 * The adapter and Microsoft's own Graph client agree on an event: what one writes the other reads the same way,
 * and a create the client repeats with the adapter's transactionId is the same event. The client is pointed at
 * the sandbox as its README says — https base URL, `customHosts`, its default middleware with only the last hop
 * swapped for one that reaches the sandbox over loopback.
 */

let world: MicrosoftWorld;
let client: Client;
beforeAll(async () => {
  world = await startMicrosoftWorld();
  await world.control('PUT', '/consistency', { new_event_delay_ms: 0, delivery_delay_ms: 0 });
  const httpsBase = `https://127.0.0.1:${world.running.port}`;
  class Loopback implements Middleware {
    async execute(context: Context): Promise<void> {
      const url = typeof context.request === 'string' ? context.request : context.request.url;
      const headers = new Headers(context.options?.headers as ConstructorParameters<typeof Headers>[0]);
      headers.set('X-Forwarded-Proto', 'https');
      context.response = await fetch(url.replace(httpsBase, world.running.url), { ...(context.options as RequestInit), headers });
    }
  }
  const token = await world.token(DEMO.ana);
  const auth: AuthenticationProvider = { getAccessToken: async () => token };
  const chain = MiddlewareFactory.getDefaultMiddlewareChain(auth);
  chain[chain.length - 1] = new Loopback();
  client = Client.initWithMiddleware({ baseUrl: `${httpsBase}/`, defaultVersion: 'v1.0', customHosts: new Set(['127.0.0.1']), middleware: chain });
});
afterAll(async () => {
  expect(world.sandbox.world.violations).toEqual([]);
  await world.close();
});

test('when the adapter creates an event, then the official client reads the same event', async () => {
  const { port } = outlookCalendar(world, DEMO.ana);
  const created = await port.createEvent(
    'primary',
    {
      title: 'Agreed',
      start: '2027-06-01T09:00:00-07:00',
      end: '2027-06-01T09:45:00-07:00',
      description: 'Line one',
      location: 'Room 1',
      attendees: [DEMO.ben],
    },
    { dedupKey: 'agreedagreedagreedagreedagreed01' },
  );
  if (!created.ok) throw new Error(JSON.stringify(created.error));
  const { event } = created.value;
  const read = await client.api(`/me/events/${event.id}`).header('Prefer', 'IdType="ImmutableId", outlook.timezone="Pacific Standard Time"').get();
  expect(read.id).toBe(event.id);
  expect(read.subject).toBe(event.title);
  expect(read.webLink).toBe(event.htmlLink);
  expect(read.start).toEqual({ dateTime: '2027-06-01T09:00:00.0000000', timeZone: 'Pacific Standard Time' });
  expect(read.end).toEqual({ dateTime: '2027-06-01T09:45:00.0000000', timeZone: 'Pacific Standard Time' });
  expect(read.location.displayName).toBe('Room 1');
  expect(read.body.contentType).toBe('html'); // Outlook serves the text it was given as HTML
  expect(read.attendees).toEqual([
    expect.objectContaining({
      type: 'required',
      emailAddress: expect.objectContaining({ address: DEMO.ben }),
      status: expect.objectContaining({ response: 'none' }),
    }),
  ]);
  expect(read.transactionId).toBe('hub-agreedagreedagreedagreedagreed01');
});

test('when the client creates an event, then the adapter reads it back with the same instants and answers', async () => {
  const made = await client
    .api('/me/events')
    .header('Prefer', 'IdType="ImmutableId"')
    .post({
      subject: 'From the client',
      start: { dateTime: '2027-06-02T10:00:00', timeZone: 'Romance Standard Time' },
      end: { dateTime: '2027-06-02T11:00:00', timeZone: 'Romance Standard Time' },
      attendees: [{ emailAddress: { address: DEMO.chen }, type: 'required' }],
    });
  const { port } = outlookCalendar(world, DEMO.ana);
  const read = await port.getEvent('primary', made.id);
  expect(read).toEqual({
    ok: true,
    value: {
      id: made.id,
      htmlLink: made.webLink,
      status: 'confirmed',
      title: 'From the client',
      start: { instant: Date.parse('2027-06-02T08:00:00Z') },
      end: { instant: Date.parse('2027-06-02T09:00:00Z') },
      attendees: [{ email: DEMO.chen, responseStatus: 'needsAction' }],
    },
  });
});
