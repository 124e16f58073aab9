/**
 * The order the Postman collection sends its tool requests in, and what each one hands to the next: a request
 * keeps values from its answer in collection variables (the event it created, the message it found), and the
 * requests after it send them — so update and delete act on the event the run created, and read and
 * check_replies on mail the search found, never on a made-up id that can only answer 404.
 */
export interface FlowStep {
  /** Collection variables this request sets from its answer: name → a JS expression over `body`. */
  keeps?: Record<string, string>;
  /** Input fields this request takes from collection variables: field → variable. */
  takes?: Record<string, string>;
  /** Pre-request lines that set a variable `takes` names, where no earlier answer gives it. */
  before?: string[];
}

export const FLOW: readonly (readonly [tool: string, step: FlowStep])[] = [
  ['hub_echo', {}],
  ['hub_current_time', {}],
  ['calendar_list_calendars', {}],
  ['calendar_get_availability', {}],
  ['calendar_find_optimal_times', {}],
  ['calendar_create_event', { keeps: { eventId: 'body.result.event_id' } }],
  ['calendar_update_event', { takes: { event_id: 'eventId' } }],
  ['calendar_delete_event', { takes: { event_id: 'eventId' } }],
  ['email_search', { keeps: { messageId: 'body.result.messages[0].message_id', threadId: 'body.result.messages[0].thread_id' } }],
  ['email_read', { takes: { message_id: 'messageId' } }],
  [
    'email_check_replies',
    {
      takes: { thread_id: 'threadId', since: 'since' },
      // A week back from the moment of sending: the thread's replies whatever day the collection runs.
      before: ["pm.collectionVariables.set('since', new Date(Date.now() - 7 * 86400000).toISOString());"],
    },
  ],
  ['email_send', {}],
];

/** What each collection variable the flow sets is, for the collection's variable list. */
export const FLOW_VARIABLES: Record<string, string> = {
  eventId: 'Set by calendar_create_event: the event calendar_update_event and calendar_delete_event act on.',
  messageId: 'Set by email_search: the newest message found, which email_read reads.',
  threadId: "Set by email_search: the newest message's thread, which email_check_replies checks.",
  since: 'Set before email_check_replies: a week before the request.',
};

/**
 * The tools in the order they are sent: the flow's first, then any tool it does not name (in catalog order).
 * Refuses a flow whose request takes a variable no earlier request keeps or sets, or that names an unknown tool.
 */
export function flowOrder(tools: readonly string[]): { tool: string; step: FlowStep }[] {
  const named = new Map(FLOW);
  const unknown = [...named.keys()].filter((t) => !tools.includes(t));
  if (unknown.length > 0) throw new Error(`src/codegen/postman-flow.ts names tools the registry lacks: ${unknown.join(', ')}`);
  const order: { tool: string; step: FlowStep }[] = [
    ...FLOW.map(([tool, step]) => ({ tool, step })),
    ...tools.filter((t) => !named.has(t)).map((tool) => ({ tool, step: {} })),
  ];
  const known = new Set<string>();
  for (const { tool, step } of order) {
    for (const line of step.before ?? []) for (const [, name] of line.matchAll(/collectionVariables\.set\('(\w+)'/g)) known.add(name!);
    const missing = Object.values(step.takes ?? {}).filter((v) => !known.has(v));
    if (missing.length > 0) throw new Error(`Postman flow: ${tool} takes ${missing.join(', ')} before any request sets it`);
    for (const name of Object.keys(step.keeps ?? {})) known.add(name);
  }
  for (const name of known) if (!(name in FLOW_VARIABLES)) throw new Error(`Postman flow: describe the variable ${name} in FLOW_VARIABLES`);
  return order;
}
