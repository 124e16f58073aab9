import { randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { MAX_LOGGED_URL_CHARS, loggedUrl, redactUrl } from '../../src/http/request-context';
import { inspectJson } from '../../src/http/json-body';
import { MAX_ISSUES, formatPath, toIssues } from '../../src/core/validation';
import { googleScope } from '../../src/integrations/catalog';
import { grants, missingScopes } from '../../src/integrations/scopes';
import { createConnectLinks } from '../../src/integrations/connect-links';
import { createSetupUrlFor } from '../../src/integrations/setup-url';

describe('scope coverage (derived from the Discovery documents)', () => {
  it.each([
    [['calendar'], 'calendar.events', true],
    [['calendar.events'], 'calendar.events', true],
    [['calendar.readonly'], 'calendar.events', false],
    [['calendar.events'], 'calendar.readonly', false],
    [['calendar.readonly'], 'calendar.settings.readonly', true],
    [['gmail.modify'], 'gmail.readonly', true],
    [['gmail.modify'], 'gmail.send', true],
    [['gmail.readonly'], 'gmail.send', false],
    [['https://mail.google.com/'], 'gmail.send', true],
  ])('when %j is granted, then %s is covered: %s', (granted, required, expected) => {
    const full = (s: string) => (s.startsWith('https://') ? s : googleScope(s));
    expect(grants(granted.map(full), full(required))).toBe(expected);
  });

  it('when some scopes are missing, then exactly those are reported', () => {
    expect(missingScopes([googleScope('calendar.readonly')], [googleScope('calendar.readonly'), googleScope('calendar.events')])).toEqual([
      googleScope('calendar.events'),
    ]);
  });
});

describe('JSON nesting depth', () => {
  const nest = (depth: number) => {
    let v: unknown = 'leaf';
    for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
    return v;
  };
  it('when a value is nested to the limit, then it passes; one deeper fails', () => {
    expect(inspectJson(nest(32), 32)).toBeNull();
    expect(inspectJson(nest(33), 32)).toBe('too_deep');
  });
  it('when a value is nested 100 000 deep, then checking it does not overflow the stack', () => {
    expect(inspectJson(nest(100_000), 32)).toBe('too_deep');
  });
  it('when a "__proto__" key appears at any depth, then it is reported', () => {
    expect(inspectJson(JSON.parse('{"a":[{"b":{"__proto__":{"x":1}}}]}'), 32)).toBe('proto_key');
    expect(inspectJson(JSON.parse('{"constructor":{"prototype":1}}'), 32)).toBeNull();
  });
});

describe('validation issue paths', () => {
  it('when zod reports nested and unknown fields, then paths read like field references', () => {
    const schema = z.strictObject({ attendees: z.array(z.string()), when: z.strictObject({ start: z.string() }) });
    const result = schema.safeParse({ attendees: ['a', 3], when: { start: 'x', zone: 'y' }, extra: 1 });
    expect(result.success).toBe(false);
    expect(toIssues(result.error!, 'inputs')).toEqual({
      issues: [
        { path: 'inputs.attendees[1]', message: 'Invalid input: expected string, received number' },
        { path: 'inputs.when.zone', message: 'unknown field' },
        { path: 'inputs.extra', message: 'unknown field' },
      ],
      truncated: false,
    });
    expect(formatPath([])).toBe('(root)');
  });

  it('when there are more issues than an answer lists, then the first ones are kept, long names cut, and truncated is set', () => {
    const unknown = Object.fromEntries(Array.from({ length: 125_000 }, (_, i) => [`k${i}`, 1]));
    const result = z.strictObject({ a: z.string() }).safeParse({ ...unknown, [`long${'x'.repeat(5000)}`]: 1 });
    const list = toIssues(result.error!, 'inputs');
    expect(list.truncated).toBe(true);
    expect(list.issues).toHaveLength(MAX_ISSUES);
    expect(list.issues[0]).toEqual({ path: 'inputs.a', message: 'Invalid input: expected string, received undefined' });
    expect(list.issues[1]).toEqual({ path: 'inputs.k0', message: 'unknown field' });
    const exact = z.strictObject({}).safeParse(Object.fromEntries(Array.from({ length: MAX_ISSUES }, (_, i) => [`k${i}`, 1])));
    expect(toIssues(exact.error!).truncated).toBe(false);
    const long = z.strictObject({}).safeParse({ [`${'y'.repeat(5000)}`]: 1 });
    expect(toIssues(long.error!).issues[0]!.path.length).toBeLessThanOrEqual(201);
  });
});

describe('access log URLs', () => {
  it('when a query carries a token, code or state, then the value is redacted and the rest kept', () => {
    expect(redactUrl('/integrations/google/callback?code=4/abc&state=xyz&scope=email')).toBe(
      '/integrations/google/callback?code=%5BRedacted%5D&state=%5BRedacted%5D&scope=email',
    );
    expect(redactUrl('/api/internal/tools')).toBe('/api/internal/tools');
  });

  it('when a URL is longer than the log keeps, then it is redacted first and then cut, saying how much was cut', () => {
    const url = `/integrations/google/connect?token=${'s'.repeat(5000)}&x=${'a'.repeat(3000)}`;
    const logged = loggedUrl(url);
    expect(logged).not.toContain('sss');
    expect(logged.startsWith('/integrations/google/connect?token=%5BRedacted%5D&x=aaa')).toBe(true);
    expect(logged).toMatch(/…\[\d+ more characters\]$/);
    expect(logged.length).toBeLessThan(MAX_LOGGED_URL_CHARS + 40);
    expect(loggedUrl('/healthz')).toBe('/healthz');
  });
});

describe('setup URLs (signed connect links)', () => {
  const CUSTOMER = '6f1c1a52-8c1e-4c53-9a5e-0b9d3c2a1f00';
  const key = (id: string) => ({ id, key: randomBytes(32) });
  const [k1, k2] = [key('k1'), key('k2')];
  let clock = Date.parse('2026-11-22T10:00:00Z');
  const links = (keys = [k1]) =>
    createConnectLinks({ publicUrl: 'https://hub.example.com/base', encryptionKeys: keys, ttlS: { setup: 600, admin: 3600 }, now: () => clock });
  const target = { customerId: CUSTOMER, userId: null, integration: 'google_calendar' as const, returnUrl: null };
  const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

  it('when built, then they point at the public URL (path prefix kept) and open to exactly this customer, user and integration', () => {
    const url = new URL(createSetupUrlFor(links())({ customerId: CUSTOMER, userId: 'u 1', integration: 'google_gmail' }));
    expect(url.origin + url.pathname).toBe('https://hub.example.com/base/integrations/google/connect');
    expect([...url.searchParams.keys()]).toEqual(['token']);
    expect(links().verify(url.searchParams.get('token')!)).toMatchObject({
      ok: true,
      link: { customerId: CUSTOMER, userId: 'u 1', integration: 'google_gmail', returnUrl: null, origin: 'setup', replace: false },
    });
  });

  it('when made for an agent (setup) or by an admin, then each lives its own lifetime, and only an admin link can carry replace', () => {
    const setup = links().create({ ...target, origin: 'setup', replace: false });
    const admin = links().create({ ...target, origin: 'admin', replace: true });
    expect(setup.expiresAt.getTime() - clock).toBe(600_000);
    expect(admin.expiresAt.getTime() - clock).toBe(3_600_000);
    expect(links().verify(tokenOf(admin.url))).toMatchObject({ ok: true, link: { origin: 'admin', replace: true, linkId: admin.linkId } });
    expect(() => links().create({ ...target, origin: 'setup', replace: true })).toThrow('only admin links may replace');
    clock += 601_000;
    expect(links().verify(tokenOf(setup.url))).toEqual({ ok: false, problem: 'expired' });
    expect(links().verify(tokenOf(admin.url))).toMatchObject({ ok: true });
    clock -= 601_000;
  });

  it('when a link is tampered with, signed with an unknown key or past its expiry, then it does not open', () => {
    const made = links().create({ ...target, origin: 'setup', replace: false });
    const [h, p, sig] = tokenOf(made.url).split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...payload, sub: randomUUID() })).toString('base64url')}.${sig}`;
    expect(links().verify(forged)).toEqual({ ok: false, problem: 'invalid' });
    expect(links([k2]).verify(tokenOf(made.url))).toEqual({ ok: false, problem: 'unknown_key' }); // k1 removed after a rotation
    expect(links().verify('not-a-jwt')).toEqual({ ok: false, problem: 'invalid' });
    const none = `${Buffer.from('{"alg":"none","kid":"k1"}').toString('base64url')}.${p}.`;
    expect(links().verify(none)).toEqual({ ok: false, problem: 'invalid' });
    clock += 601_000;
    expect(links().verify(tokenOf(made.url))).toEqual({ ok: false, problem: 'expired' });
    clock -= 601_000;
  });

  it('when the encryption keys rotate, then links made under the previous key still open until they expire', () => {
    const made = links([k1]).create({ ...target, returnUrl: 'https://app.example.com/done', origin: 'admin', replace: false });
    expect(links([k2, k1]).verify(tokenOf(made.url))).toMatchObject({ ok: true, link: { returnUrl: 'https://app.example.com/done' } });
  });
});
