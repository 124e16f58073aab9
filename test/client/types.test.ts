import type { HubClient, ToolInputs, ToolResults } from '../../packages/client/src/index';

/**
 * Compile-time checks of the client's per-tool types (`npm test` type-checks this file with tsc before Jest
 * runs): each `@ts-expect-error` line must be an error, or tsc fails.
 */

async function typedUse(hub: HubClient) {
  const ids = { customerId: 'c', agentId: 'a' };
  const created = await hub.execute('calendar_create_event', { title: 'T', start: 's', end: 'e' }, ids);
  if (created.ok) {
    const id: string = created.result.event_id;
    void id;
    // @ts-expect-error — an event result has no message_id
    void created.result.message_id;
  } else if (created.error.code === 'INTEGRATION_NOT_CONNECTED') {
    const url: string = created.error.details.setup_url;
    void url;
  } else if (created.error.code === 'RATE_LIMITED') {
    const wait: number | undefined = created.error.retry_after_s;
    void wait;
  }
  // @ts-expect-error — email_send needs `to` and `body`
  await hub.execute('email_send', { subject: 'x' }, ids);
  // @ts-expect-error — no such tool
  await hub.execute('calendar_teleport', {}, ids);
  // @ts-expect-error — hub_echo takes no `text`
  await hub.execute('hub_echo', { message: 'm', text: 't' }, ids);
  const send: ToolInputs['email_send'] = { to: ['a@example.com'], body: 'b', body_type: 'html' };
  const search: ToolResults['email_search']['messages'] = [];
  void send;
  void search;
}

test('the per-tool types are checked by tsc (this file compiles only if they hold)', () => {
  expect(typeof typedUse).toBe('function');
});
