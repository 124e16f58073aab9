import { randomBytes } from 'node:crypto';
import { receiptErrorDetails, receiptErrorMessage } from '../../src/audit/hub-text';
import { createRedactor } from '../../src/audit/redact';

/** A receipt's error in `redacted` mode: the Hub's words and policy rule names in clear, the customer's data not. */

const key = randomBytes(32);
const redacted = createRedactor('redacted', key);
/** The compact redacted form of a string: its length and a keyed hash (equal values, equal hashes). */
const MARK = /string\(\d+\) #[0-9a-f]{16}/;
const message = (text: string, details?: unknown) => receiptErrorMessage(text, details, 'redacted', redacted)!;

describe('receipt error text', () => {
  test('when the Hub wrote a message with no data in it, then it is kept as written', () => {
    const text = 'The customer policy requires context.conversation_id on every tool call (over MCP, the X-Hub-Conversation-Id header)';
    expect(message(text, { rule: 'require_conversation_id', policy: 'customer' })).toBe(text);
    expect(message('Google did not answer calendar.events.insert in time', { reason: 'timeout' })).toBe('Google did not answer calendar.events.insert in time');
    const blocked = 'email_search@1.0.0 is blocked; call email_search@2.0.0 instead';
    expect(message(blocked, { rule: 'tool_version_blocked', tool_version: 'email_search@1.0.0', replacement: 'email_search@2.0.0' })).toBe(blocked);
    const limited = 'Google limited this account until 2026-11-27T10:00:00.000Z; gmail.users.messages.list was not sent to Google';
    expect(message(limited, { scope: 'user', reason: 'rateLimitExceeded', cooldown_until: '2026-11-27T10:00:00.000Z' })).toBe(limited);
  });

  test('when a message quotes ids, names domains or addresses, or carries Google text, then only those are redacted, equal values alike', () => {
    const notFound = message('No event "evt-secret-1" on calendar "ana@acme.example" (or that calendar is not accessible to the connected account)', {
      event_id: 'evt-secret-1',
      calendar_id: 'ana@acme.example',
    });
    expect(notFound).toMatch(/^No event "string\(12\) #[0-9a-f]{16}" on calendar "string\(16\) #[0-9a-f]{16}" \(or that calendar is not accessible/);
    expect(notFound).not.toContain('evt-secret-1');
    expect(notFound).not.toContain('acme');
    const domains = message('The customer policy does not allow writing to rival.example, other.example', {
      rule: 'email_allowed_recipient_domains',
      policy: 'customer',
      refused_domains: ['rival.example', 'other.example'],
    });
    expect(domains).toMatch(/^The customer policy does not allow writing to string\(13\) #[0-9a-f]{16}, string\(13\) #/);
    expect(domains).not.toContain('rival');
    const google = message('Google refused calendar.events.insert as a conflict: The event "Board dinner" overlaps', { reason: 'conflict' });
    expect(google).toMatch(/^Google refused calendar\.events\.insert as a conflict: string\(\d+\)( #[0-9a-f]{16})?$/);
    expect(message('Delivery to bob@rival.example failed')).toMatch(/^Delivery to string\(17\) #[0-9a-f]{16} failed$/);
    // the same value, the same marker: receipts still match on it
    expect(message('No event "x-1" here').match(MARK)![0]).toBe(message('Unknown "x-1"').match(MARK)![0]);
  });

  test('when the details name the policy rule, then rule and policy stay in clear and the rest is redacted', () => {
    const details = receiptErrorDetails({ rule: 'email_allowed_recipient_domains', policy: 'agent', refused_domains: ['rival.example'] }, 'redacted', redacted);
    expect(details).toEqual({ rule: 'email_allowed_recipient_domains', policy: 'agent', refused_domains: expect.objectContaining({ $array: 1 }) });
    expect(receiptErrorDetails({ rule: 'Not A Rule; DROP', policy: 'someone' }, 'redacted', redacted)).toEqual({
      rule: expect.stringMatching(MARK),
      policy: expect.stringMatching(MARK),
    });
  });

  test('when the payload mode is full or none, then the message is kept whole or not at all', () => {
    expect(receiptErrorMessage('No event "e1"', { event_id: 'e1' }, 'full', createRedactor('full', key))).toBe('No event "e1"');
    expect(receiptErrorMessage('No event "e1"', { event_id: 'e1' }, 'none', createRedactor('none', key))).toBeNull();
    expect(receiptErrorDetails({ rule: 'enabled_tools' }, 'none', createRedactor('none', key))).toBeNull();
  });
});
