import { chooseThread, normalizeSubject, parseMessageIds, replyTargets } from '../../src/gmail/threading';

describe('Gmail threading rules', () => {
  it.each([
    ['Re: Budget', 'budget'],
    ['RE: Fwd: re:  Budget  plan', 'budget plan'],
    ['Fw: Budget', 'budget'],
    ['AW: Budget', 'budget'],
    ['Re[2]: Budget', 'budget'],
    ['Budget: Q4', 'budget: q4'],
    ['', ''],
  ])('when the subject is %p, then it normalizes to %p', (subject, expected) => {
    expect(normalizeSubject(subject)).toBe(expected);
  });

  it('when References and In-Reply-To are given, then the targets are In-Reply-To first and References newest first', () => {
    expect(replyTargets('<c@x>', '<a@x> <b@x>\r\n <c@x>')).toEqual(['c@x', 'b@x', 'a@x']);
    expect(parseMessageIds('no-brackets@x')).toEqual(['no-brackets@x']);
    expect(parseMessageIds(undefined)).toEqual([]);
  });

  const mailbox: Record<string, { threadId: string; subject: string }[]> = {
    'a@x': [{ threadId: 't1', subject: 'Budget' }],
    'b@x': [{ threadId: 't2', subject: 'Other' }],
  };
  const lookup = (id: string) => mailbox[id] ?? [];

  it('when a reply refers to a message and the subject matches, then it joins that thread', () => {
    expect(chooseThread(['a@x'], 'Re: Budget', lookup)).toBe('t1');
  });

  it('when the subject changed, then it starts a new thread even though it refers to the message', () => {
    expect(chooseThread(['a@x'], 'New topic', lookup)).toBeUndefined();
  });

  it('when it refers to nothing known, then it starts a new thread even with the same subject', () => {
    expect(chooseThread(['zzz@x'], 'Budget', lookup)).toBeUndefined();
  });

  it('when a thread id is required, then only that thread may be joined', () => {
    expect(chooseThread(['a@x'], 'Re: Budget', lookup, 't1')).toBe('t1');
    expect(chooseThread(['a@x'], 'Re: Budget', lookup, 't2')).toBeUndefined();
  });
});
