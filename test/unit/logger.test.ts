import { scrubLine } from '../../src/logger';

describe('log line scrubbing', () => {
  it('when a field name mentions a token or secret, then its value is redacted whatever its type', () => {
    const line = JSON.stringify({
      access_token: 'abc',
      refreshToken: 'def',
      client_secret: 'ghi',
      nested: { id_token: 'jkl', tokens: ['x', 'y'], token_info: { a: 1 } },
      authorization: 'Basic xyz',
      ok: 'visible',
    });
    const out = scrubLine(line);
    expect(JSON.parse(out)).toEqual({
      access_token: '[Redacted]',
      refreshToken: '[Redacted]',
      client_secret: '[Redacted]',
      nested: { id_token: '[Redacted]', tokens: '[Redacted]', token_info: '[Redacted]' },
      authorization: '[Redacted]',
      ok: 'visible',
    });
  });

  it('when a message embeds credentials, then Bearer/ServiceSecret values and Google token shapes are cut', () => {
    const out = scrubLine(
      JSON.stringify({
        msg: 'sent Authorization: Bearer ya29.A0abc_def-1 and ServiceSecret s3cr3t-value, refresh 1//0gABCDEFGHIJKLMN, key hub_sk_AbC-123_xyz',
      }),
    );
    expect(out).not.toMatch(/ya29|s3cr3t|1\/\/0g|AbC-123/);
    expect(JSON.parse(out).msg).toBe('sent Authorization: Bearer [Redacted] and ServiceSecret [Redacted], refresh [Redacted], key [Redacted]');
  });

  it('when a message embeds a Microsoft token, then JWT-shaped and refresh-token-shaped values are cut', () => {
    const jwt = 'eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJhdWQiOiIwMDAwMDAwMyJ9.c2lnbmF0dXJlLXBhcnQ';
    const refresh = `1.A${'Qm9vZ2llV29vZ2ll'.repeat(6)}.AgAB*x`;
    const out = scrubLine(JSON.stringify({ msg: `graph said ${jwt} then ${refresh} end; version 1.2 stays` }));
    expect(out).not.toContain('eyJ0eXAi');
    expect(out).not.toContain('Qm9vZ2ll');
    expect(JSON.parse(out).msg).toBe('graph said [Redacted] then [Redacted] end; version 1.2 stays');
  });

  it('when a configured secret appears anywhere, then the literal is removed', () => {
    const out = scrubLine('{"msg":"x super-long-configured-secret y"}', ['super-long-configured-secret']);
    expect(out).toBe('{"msg":"x [Redacted] y"}');
  });

  it('when a line has nothing sensitive, then it is returned unchanged', () => {
    const line = '{"level":30,"msg":"request completed","req":{"url":"/api/internal/tools/execute"}}';
    expect(scrubLine(line)).toBe(line);
  });

  it('when the word token appears only inside a value, then the value stays readable', () => {
    const line = JSON.stringify({ msg: 'refreshing the token now' });
    expect(scrubLine(line)).toBe(line);
  });
});

describe('log line scrubbing of hostile lines', () => {
  // Their CPU cost (linear: under 5 ms a line) is measured alone: test/timing/cpu-budgets.test.ts.
  it('when a 16 KB value is dense in sensitive words, then the sensitive field is redacted and the rest kept', () => {
    const dense = JSON.stringify({ level: 30, url: `/${'token'.repeat(3277)}`, secret_hint: 'passw'.repeat(3277), msg: 'request completed' });
    expect(dense.length).toBeGreaterThan(32_000);
    expect(JSON.parse(scrubLine(dense))).toEqual({ level: 30, url: `/${'token'.repeat(3277)}`, secret_hint: '[Redacted]', msg: 'request completed' });
  });

  it('when a line is not well-formed JSON, then scrubbing still ends and leaves the readable part', () => {
    for (const line of ['{"token":', '{"token":"abc', '{"a":"\\', '{"token":{"a":[1,2', '"'.repeat(10_000), '{"x":1}"token":"y"']) {
      expect(() => scrubLine(line)).not.toThrow();
    }
    expect(scrubLine('{"token":"abc","x":"ok"')).toBe('{"token":"[Redacted]","x":"ok"');
  });
});
