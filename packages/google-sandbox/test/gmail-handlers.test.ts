import type { ApiCall, ApiResult } from '../src/api/types';
import { allMethods, loadDiscoveryDocuments } from '../src/discovery/documents';
import { checkResponseBody } from '../src/discovery/schema-check';
import { GMAIL_HANDLERS } from '../src/gmail/handlers';
import { type GmailSeed, seedMailbox } from '../src/gmail/seed';
import { createClock } from '../src/clock';
import { createGmailState } from '../src/gmail/state';
import { createRandom } from '../src/random';
import { type Account, type World, createWorld } from '../src/world';

/** The read side and label changes, called as the dispatcher calls them (Discovery-validated ApiCalls). */

const doc = loadDiscoveryDocuments()[1]!;
const responseRef = new Map(allMethods(doc).map((m) => [m.id, m.response?.$ref]));
const MODIFY = 'https://www.googleapis.com/auth/gmail.modify';
const METADATA = 'https://www.googleapis.com/auth/gmail.metadata';

const ANA: Account = { email: 'ana@acme.example', name: 'Ana García', timeZone: 'Europe/Madrid' };
const PDF = Buffer.from('%PDF-1.4 quarterly numbers').toString('base64');

let world: World;
let ids: string[];

function call(methodId: string, options: Partial<Pick<ApiCall, 'params' | 'query' | 'body' | 'media' | 'scopes' | 'account'>> = {}): ApiResult {
  const result = GMAIL_HANDLERS[methodId]!({
    world,
    methodId,
    family: 'gmail',
    params: { userId: 'me', ...options.params },
    query: options.query ?? {},
    body: options.body,
    media: options.media,
    account: options.account ?? ANA,
    scopes: options.scopes ?? [MODIFY],
    now: world.clock.now(),
  });
  const ref = responseRef.get(methodId);
  if (result.status < 300 && ref) expect(checkResponseBody(doc, ref, result.body)).toEqual([]);
  return result;
}

const body = (r: ApiResult) => r.body as any;
const listIds = (query: Record<string, unknown>) =>
  (body(call('gmail.users.messages.list', { query: query as ApiCall['query'] })).messages ?? []).map((m: any) => m.id);
const day = (iso: string) => `${iso}T10:00:00Z`;

const SEED: GmailSeed = {
  messages: [
    {
      from: 'Ben Okafor <ben@acme.example>',
      to: [ANA.email],
      subject: 'Q4 planning deck',
      text: "Hi Ana, here's the deck for Thursday's meeting.",
      date: day('2024-03-01'),
      attachments: [{ filename: 'q4 plan.pdf', content_type: 'application/pdf', content_base64: PDF }],
      message_id: 'deck@acme.example',
    },
    {
      from: 'Carla Rossi <carla@partner.example>',
      to: [ANA.email],
      cc: ['ben@acme.example'],
      subject: 'Integration timeline',
      html: '<p>Could we <b>move</b> the launch review?</p>',
      date: day('2024-03-02'),
      labels: ['INBOX', 'Partners'],
      message_id: 'timeline-1@partner.example',
    },
    {
      from: 'Carla Rossi <carla@partner.example>',
      to: [ANA.email],
      subject: 'Re: Integration timeline',
      text: 'Following up: Wednesday works.',
      date: day('2024-03-03'),
      in_reply_to: 'timeline-1@partner.example',
      labels: ['INBOX', 'UNREAD', 'STARRED'],
    },
    { from: 'spam@bad.example', to: [ANA.email], subject: 'You won', text: 'Claim your prize', date: day('2024-03-04'), labels: ['SPAM'] },
    {
      from: 'Weekly Digest <digest@news.example>',
      to: [ANA.email],
      subject: 'Your weekly digest',
      text: 'Top stories this week',
      date: day('2024-02-20'),
      labels: [],
    },
  ],
};

// createWorld generates an RSA signing key (~200 ms): make one, and give each test fresh Gmail state over it.
const baseWorld = createWorld({ seed: 1 });

beforeEach(() => {
  world = { ...baseWorld, clock: createClock(), random: createRandom(1), accounts: new Map(), gmail: createGmailState() };
  world.accounts.set(ANA.email, ANA);
  const seeded = seedMailbox(world, ANA, SEED);
  if (!seeded.ok) throw new Error(seeded.message);
  ids = seeded.ids;
});

describe('users.getProfile and labels.list', () => {
  test('when the profile is read, then it counts messages and threads and gives the history id as a string', () => {
    const profile = body(call('gmail.users.getProfile'));
    expect(profile).toMatchObject({ emailAddress: ANA.email, messagesTotal: 5, threadsTotal: 4 });
    expect(profile.historyId).toMatch(/^\d+$/);
  });

  test('when userId is the own address in another case, then it is "me"; when it is someone else, then 403 delegation denied', () => {
    expect(call('gmail.users.getProfile', { params: { userId: 'ANA@Acme.Example' } }).status).toBe(200);
    const denied = call('gmail.users.getProfile', { params: { userId: 'ben@acme.example' } });
    expect(denied.status).toBe(403);
    expect(body(denied).error).toMatchObject({ message: 'Delegation denied for ben@acme.example', status: 'PERMISSION_DENIED' });
  });

  test('when labels are listed, then system labels come first and seeded user labels follow with Label_ ids', () => {
    const labels = body(call('gmail.users.labels.list')).labels;
    expect(labels.map((l: any) => l.id)).toEqual(expect.arrayContaining(['INBOX', 'SENT', 'TRASH', 'SPAM', 'UNREAD', 'STARRED', 'CATEGORY_PERSONAL']));
    expect(labels.at(-1)).toEqual({ id: 'Label_1', name: 'Partners', messageListVisibility: 'show', labelListVisibility: 'labelShow', type: 'user' });
  });
});

describe('messages.list', () => {
  test('when listing without filters, then newest first, Spam left out, items are {id, threadId}', () => {
    const res = body(call('gmail.users.messages.list'));
    expect(res.messages.map((m: any) => m.id)).toEqual([ids[2], ids[1], ids[0], ids[4]]);
    expect(res.messages[0]).toEqual({ id: ids[2], threadId: ids[1] });
    // Gmail's "estimate" is measured to be a placeholder (201) for any non-empty result, never the count.
    expect(res.resultSizeEstimate).toBe(201);
  });

  test('when nothing matches, then the messages key is absent and the estimate is 0', () => {
    expect(body(call('gmail.users.messages.list', { query: { q: 'from:nobody@nowhere.example' } }))).toEqual({ resultSizeEstimate: 0 });
  });

  test('when includeSpamTrash is set or the query asks for spam, then Spam is included', () => {
    expect(listIds({ includeSpamTrash: true })).toContain(ids[3]);
    expect(listIds({ q: 'in:spam' })).toEqual([ids[3]]);
    expect(listIds({ labelIds: ['SPAM'] })).toEqual([ids[3]]);
  });

  test('when labelIds has several labels, then messages need all of them', () => {
    expect(listIds({ labelIds: ['INBOX', 'UNREAD'] })).toEqual([ids[2], ids[0]]);
    expect(listIds({ labelIds: ['INBOX', 'STARRED', 'UNREAD'] })).toEqual([ids[2]]);
  });

  test.each([
    ['from:carla@partner.example', [2, 1]],
    ['from:ben', [0]],
    ['to:ben@acme.example', [1]],
    ['cc:ben', [1]],
    ['subject:timeline', [2, 1]],
    ['subject:"weekly digest"', [4]],
    ['is:unread', [2, 0]],
    ['is:read', [1, 4]],
    ['is:starred', [2]],
    ['has:attachment', [0]],
    ['filename:pdf', [0]],
    ['filename:"q4 plan.pdf"', [0]],
    ['label:partners', [1]],
    ['in:inbox -is:unread', [1]],
    ['deck', [0]],
    ['meet', []],
    ['MOVE', [1]],
    ['"launch review"', [1]],
    ['"review launch"', []],
    ['timeline -from:carla', []],
    ['from:ben OR from:digest@news.example', [0, 4]],
    ['{deck digest}', [0, 4]],
    ['rfc822msgid:deck@acme.example', [0]],
    ['rfc822msgid:<timeline-1@partner.example>', [1]],
    ['after:2024/03/02', [2, 1]],
    ['before:2024/03/01', [4]],
    ['after:1709287200 before:2024-03-02', [0]],
    ['in:anywhere prize', [3]],
    ['frobnicate:yes', []],
    ['larger:500', [0]],
    ['smaller:0.5k from:carla', [2, 1]],
  ])('when q is %p, then it finds %p', (q, expected) => {
    expect(listIds({ q })).toEqual(expected.map((i) => ids[i]));
  });

  test('when newer_than: is used, then it is relative to sandbox time', () => {
    world.clock.advance(Date.parse('2024-03-04T00:00:00Z') - world.clock.now());
    expect(listIds({ q: 'newer_than:2d' })).toEqual([ids[2], ids[1]]);
    expect(listIds({ q: 'older_than:2d' })).toEqual([ids[0], ids[4]]);
  });

  test('when results exceed maxResults, then pages chain through nextPageToken and a foreign token is refused', () => {
    const first = body(call('gmail.users.messages.list', { query: { maxResults: 3 } }));
    expect(first.messages).toHaveLength(3);
    expect(first.nextPageToken).toMatch(/^\d{20}$/);
    expect(first.resultSizeEstimate).toBe(201);
    const second = body(call('gmail.users.messages.list', { query: { maxResults: 3, pageToken: first.nextPageToken } }));
    expect(second.messages.map((m: any) => m.id)).toEqual([ids[4]]);
    expect(second.nextPageToken).toBeUndefined();
    expect(second.resultSizeEstimate).toBe(201); // not exact on the last page either (gogcli#983)
    const bad = call('gmail.users.messages.list', { query: { pageToken: '12345' } });
    expect(bad.status).toBe(400);
    expect(body(bad).error).toMatchObject({ message: 'Invalid pageToken', errors: [{ reason: 'invalidArgument' }] });
  });

  test('when the token only has gmail.metadata, then q is refused but labelIds work', () => {
    expect(body(call('gmail.users.messages.list', { query: { q: 'deck' }, scopes: [METADATA] })).error.message).toBe(
      "Metadata scope does not support 'q' parameter",
    );
    expect(call('gmail.users.messages.list', { query: { labelIds: ['INBOX'] }, scopes: [METADATA] }).status).toBe(200);
  });
});

describe('messages.get', () => {
  test('when a message with an attachment is read in full, then the payload is the MIME tree with partIds, decoded data and an attachmentId', () => {
    const msg = body(call('gmail.users.messages.get', { params: { id: ids[0]! } }));
    expect(msg).toMatchObject({ id: ids[0], threadId: ids[0], labelIds: ['INBOX', 'UNREAD'], internalDate: String(Date.parse(day('2024-03-01'))) });
    expect(msg.snippet).toBe('Hi Ana, here&#39;s the deck for Thursday&#39;s meeting.');
    expect(msg.historyId).toMatch(/^\d+$/);
    const { payload } = msg;
    expect(payload).toMatchObject({ partId: '', mimeType: 'multipart/mixed', filename: '', body: { size: 0 } });
    expect(payload.headers.find((h: any) => h.name === 'Subject').value).toBe('Q4 planning deck');
    const [text, pdf] = payload.parts;
    expect(text).toMatchObject({ partId: '0', mimeType: 'text/plain', filename: '' });
    expect(Buffer.from(text.body.data, 'base64url').toString()).toBe("Hi Ana, here's the deck for Thursday's meeting.");
    expect(text.body.size).toBe(Buffer.byteLength("Hi Ana, here's the deck for Thursday's meeting."));
    expect(pdf).toMatchObject({ partId: '1', mimeType: 'application/pdf', filename: 'q4 plan.pdf', body: { size: 26 } });
    expect(pdf.body.attachmentId).toMatch(/^ANGjdJ[\w-]{100,}$/);
    expect(pdf.body.data).toBeUndefined();
  });

  test('when part data is returned, then it is URL-safe base64 with padding', () => {
    const msg = body(call('gmail.users.messages.get', { params: { id: ids[2]! } }));
    expect(msg.payload.body.data).toMatch(/^[A-Za-z0-9_-]+=*$/);
    expect(msg.payload.body.data.length % 4).toBe(0);
  });

  test('when format=metadata with metadataHeaders, then only those headers (any case) and no body come back', () => {
    const msg = body(call('gmail.users.messages.get', { params: { id: ids[1]! }, query: { format: 'metadata', metadataHeaders: ['subject', 'FROM'] } }));
    expect(msg.payload).toEqual({
      mimeType: 'text/html',
      headers: [
        { name: 'From', value: 'Carla Rossi <carla@partner.example>' },
        { name: 'Subject', value: 'Integration timeline' },
      ],
    });
    expect(msg.snippet).toBe('Could we move the launch review?');
  });

  test('when format=minimal, then no payload; when format=raw, then raw is the whole message', () => {
    const minimal = body(call('gmail.users.messages.get', { params: { id: ids[4]! }, query: { format: 'minimal' } }));
    expect(Object.keys(minimal)).toEqual(['id', 'threadId', 'snippet', 'sizeEstimate', 'historyId', 'internalDate']);
    const raw = body(call('gmail.users.messages.get', { params: { id: ids[4]! }, query: { format: 'raw' } }));
    const text = Buffer.from(raw.raw, 'base64url').toString();
    expect(text).toContain('Subject: Your weekly digest\r\n');
    expect(raw.sizeEstimate).toBe(Buffer.from(raw.raw, 'base64url').length);
  });

  test('when the id is unknown, then 404; when it is not a Gmail id, then 400 Invalid id value', () => {
    expect(body(call('gmail.users.messages.get', { params: { id: '18f0000000000000' } })).error).toMatchObject({
      code: 404,
      message: 'Requested entity was not found.',
      status: 'NOT_FOUND',
    });
    expect(body(call('gmail.users.messages.get', { params: { id: 'not-an-id' } })).error).toMatchObject({ code: 400, message: 'Invalid id value' });
  });

  test('when the token only has gmail.metadata, then format full and raw are refused and metadata works', () => {
    const full = call('gmail.users.messages.get', { params: { id: ids[0]! }, scopes: [METADATA] });
    expect(full.status).toBe(403);
    expect(body(full).error.message).toBe("Metadata scope doesn't allow format FULL");
    expect(call('gmail.users.messages.get', { params: { id: ids[0]! }, query: { format: 'metadata' }, scopes: [METADATA] }).status).toBe(200);
  });
});

describe('messages.attachments.get', () => {
  const attachmentId = (id: string) => body(call('gmail.users.messages.get', { params: { id } })).payload.parts[1].body.attachmentId as string;

  test('when an attachment is fetched by the id messages.get gave, then size and unpadded base64url data come back', () => {
    const res = body(call('gmail.users.messages.attachments.get', { params: { messageId: ids[0]!, id: attachmentId(ids[0]!) } }));
    expect(Object.keys(res)).toEqual(['size', 'data']);
    expect(res.data).not.toContain('=');
    expect(Buffer.from(res.data, 'base64url').toString()).toBe('%PDF-1.4 quarterly numbers');
    expect(res.size).toBe(26);
  });

  test('when the message is read again, then the attachment id changes and the old one still works (Gmail ids are ephemeral)', () => {
    const first = attachmentId(ids[0]!);
    const second = attachmentId(ids[0]!);
    expect(second).not.toBe(first);
    expect(call('gmail.users.messages.attachments.get', { params: { messageId: ids[0]!, id: first } }).status).toBe(200);
  });

  test('when the attachment id is unknown or belongs to another message, then 400 Invalid attachment token; unknown message 404', () => {
    const id = attachmentId(ids[0]!);
    expect(body(call('gmail.users.messages.attachments.get', { params: { messageId: ids[1]!, id } })).error.message).toBe('Invalid attachment token');
    expect(call('gmail.users.messages.attachments.get', { params: { messageId: ids[0]!, id: 'ANGjdJnope' } }).status).toBe(400);
    expect(call('gmail.users.messages.attachments.get', { params: { messageId: '1aaaaaaaaaaaaaaa', id } }).status).toBe(404);
  });
});

describe('messages.modify and messages.trash', () => {
  test('when labels are added and removed, then the answer is {id, threadId, labelIds} and the history id moves on', () => {
    const before = body(call('gmail.users.getProfile')).historyId;
    const res = body(
      call('gmail.users.messages.modify', { params: { id: ids[0]! }, body: { addLabelIds: ['STARRED', 'Label_1'], removeLabelIds: ['UNREAD'] } }),
    );
    expect(res).toEqual({ id: ids[0], threadId: ids[0], labelIds: ['INBOX', 'STARRED', 'Label_1'] });
    expect(Number(body(call('gmail.users.getProfile')).historyId)).toBeGreaterThan(Number(before));
    expect(listIds({ q: 'label:partners' })).toEqual([ids[1], ids[0]]);
  });

  test('when every label is removed, then labelIds is omitted', () => {
    expect(body(call('gmail.users.messages.modify', { params: { id: ids[1]! }, body: { removeLabelIds: ['INBOX', 'Label_1'] } }))).toEqual({
      id: ids[1],
      threadId: ids[1],
    });
  });

  test('when a label is unknown, a name instead of an id, or SENT, then 400 Invalid label naming it', () => {
    for (const label of ['Label_99', 'Partners', 'SENT', 'inbox']) {
      const res = call('gmail.users.messages.modify', { params: { id: ids[0]! }, body: { addLabelIds: [label] } });
      expect(body(res).error).toMatchObject({ code: 400, message: `Invalid label: ${label}`, errors: [{ reason: 'invalidArgument' }] });
    }
    expect(body(call('gmail.users.messages.modify', { params: { id: ids[0]! }, body: {} })).error.message).toBe('No label add or removes specified');
  });

  test('when a message is trashed, then TRASH replaces INBOX, it leaves the default listing and in:trash finds it', () => {
    expect(body(call('gmail.users.messages.trash', { params: { id: ids[0]! } }))).toEqual({ id: ids[0], threadId: ids[0], labelIds: ['UNREAD', 'TRASH'] });
    expect(listIds({})).not.toContain(ids[0]);
    expect(listIds({ q: 'in:trash' })).toEqual([ids[0]]);
    expect(call('gmail.users.messages.trash', { params: { id: '1bbbbbbbbbbbbbbb' } }).status).toBe(404);
  });
});

describe('threads.get', () => {
  test('when a thread is read, then its messages come oldest first with the thread history id', () => {
    const thread = body(call('gmail.users.threads.get', { params: { id: ids[1]! } }));
    expect(thread.id).toBe(ids[1]);
    expect(thread.messages.map((m: any) => m.id)).toEqual([ids[1], ids[2]]);
    expect(thread.historyId).toBe(thread.messages[1].historyId);
    expect(thread.messages[1].payload.mimeType).toBe('text/plain');
  });

  test('when format=metadata, then messages carry headers only', () => {
    const thread = body(call('gmail.users.threads.get', { params: { id: ids[1]! }, query: { format: 'metadata', metadataHeaders: ['Subject'] } }));
    expect(thread.messages.map((m: any) => m.payload.headers[0].value)).toEqual(['Integration timeline', 'Re: Integration timeline']);
  });

  test('when the thread does not exist, then 404', () => {
    expect(call('gmail.users.threads.get', { params: { id: ids[2]! } }).status).toBe(404);
  });
});
