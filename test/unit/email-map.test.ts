import { isoDate } from '../../src/providers/google/gmail-request';
import type { GmailMessage } from '../../src/providers/google/gmail-schemas';
import { repliesSince, toSummary } from '../../src/providers/google/gmail-map';

const msg = (id: string, from: string, at: string, labelIds: string[] = ['INBOX']): GmailMessage => ({
  id,
  threadId: 't1',
  labelIds,
  snippet: `snippet ${id}`,
  internalDate: String(Date.parse(at)),
  payload: {
    mimeType: 'text/plain',
    headers: [
      { name: 'From', value: from },
      { name: 'To', value: 'Me <me@acme.example>' },
      { name: 'Subject', value: 'S' },
    ],
    body: { size: 1, data: 'eA' },
  },
});

describe('Gmail → contract mapping', () => {
  it('when replies are picked, then only later mail not sent by the account (address, SENT or DRAFT) counts, oldest first', () => {
    const thread = [
      msg('a', 'Me <me@acme.example>', '2024-01-10T09:30:00Z', ['SENT']),
      msg('b', 'John <john@example.com>', '2024-01-12T08:00:00Z'),
      msg('c', 'John <john@example.com>', '2024-01-11T14:22:00.250Z'),
      msg('d', 'me@ACME.example', '2024-01-13T00:00:00Z', ['INBOX']), // from the account itself, e.g. via another client
      msg('e', 'alias@acme.example', '2024-01-13T00:00:00Z', ['SENT']), // a send-as alias
      msg('f', 'John <john@example.com>', '2024-01-13T00:00:00Z', ['DRAFT']),
      msg('g', 'John <john@example.com>', '2024-01-10T09:30:00Z'), // exactly at `since`: not after it
    ];
    expect(repliesSince(thread, Date.parse('2024-01-10T09:30:00Z'), 'me@acme.example')).toEqual([
      { message_id: 'c', from: 'john@example.com', snippet: 'snippet c', date: '2024-01-11T14:22:00.250Z' },
      { message_id: 'b', from: 'john@example.com', snippet: 'snippet b', date: '2024-01-12T08:00:00Z' },
    ]);
  });

  it('when a message is summarised, then addresses are bare, the date is UTC and a part-less message has no attachments', () => {
    expect(toSummary(msg('b', 'John Smith <john@example.com>', '2024-01-10T10:30:00+01:00'))).toEqual({
      message_id: 'b',
      thread_id: 't1',
      from: 'john@example.com',
      to: ['me@acme.example'],
      subject: 'S',
      snippet: 'snippet b',
      date: '2024-01-10T09:30:00Z',
      has_attachments: false,
    });
    expect(isoDate('1704879000123')).toBe('2024-01-10T09:30:00.123Z');
  });
});
