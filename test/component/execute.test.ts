import { randomUUID } from 'node:crypto';
import { anExecuteBody } from '../helpers/factories';
import { client, serviceAuth } from '../helpers/http';
import { buildTestHub, type TestHub } from '../helpers/hub';

const EXECUTE = '/api/internal/tools/execute/';

describe('POST /api/internal/tools/execute/', () => {
  let hub: TestHub;
  const api = () => client(hub.app);
  const execute = (body: unknown) =>
    api()
      .post(EXECUTE)
      .set('Authorization', serviceAuth())
      .set('Content-Type', 'application/json')
      .send(body as object);

  beforeAll(async () => {
    hub = await buildTestHub();
  });
  afterAll(() => hub.close());

  describe('happy path', () => {
    it('when hub_echo is called, then the contract success envelope comes back with the inputs', async () => {
      const res = await execute(anExecuteBody({ context: { conversation_id: 'c-1', request_id: 'req-42' } })).expect(200);
      expect(res.body).toEqual({
        success: true,
        tool: 'hub_echo',
        result: { message: 'hello' },
        metadata: { execution_time_ms: expect.any(Number), api_calls: 0, request_id: 'req-42', tool_version: '1.0.0' },
      });
      expect(res.headers['x-request-id']).toBe('req-42');
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
    });

    it('when the path has no trailing slash, then it is the same endpoint', async () => {
      const res = await api().post('/api/internal/tools/execute').set('Authorization', serviceAuth()).send(anExecuteBody()).expect(200);
      expect(res.body.success).toBe(true);
    });

    it('when no request_id is given, then one is generated, or the X-Request-Id header is used', async () => {
      const generated = await execute(anExecuteBody()).expect(200);
      expect(generated.body.metadata.request_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(generated.headers['x-request-id']).toBe(generated.body.metadata.request_id);

      const fromHeader = await execute(anExecuteBody()).set('X-Request-Id', 'trace-abc').expect(200);
      expect(fromHeader.body.metadata.request_id).toBe('trace-abc');
    });

    it('when optional fields are null or absent, then the request is accepted (as agents in any language send them)', async () => {
      const body = { ...anExecuteBody(), user_id: null, context: null };
      await execute(body).expect(200);
      const { user_id: _omit, ...withoutUser } = anExecuteBody();
      await execute({ ...withoutUser, context: { conversation_id: null, request_id: null } }).expect(200);
    });

    it('when ids are upper-case UUIDs or not RFC-versioned, then they are accepted like PostgreSQL accepts them', async () => {
      await execute(anExecuteBody({ customer_id: randomUUID().toUpperCase(), agent_id: '11111111-1111-1111-1111-111111111111' })).expect(200);
    });

    it('when the message is unicode, then it comes back byte for byte', async () => {
      const message = 'Grüße — 会議 📅 \u202e';
      const res = await execute(anExecuteBody({ inputs: { message } })).expect(200);
      expect(res.body.result.message).toBe(message);
    });
  });

  describe('errors', () => {
    it('when the tool is unknown, then 404 TOOL_NOT_FOUND lists the available tools', async () => {
      const res = await execute(anExecuteBody({ tool: 'calendar_teleport' })).expect(404);
      expect(res.body).toEqual({
        success: false,
        tool: 'calendar_teleport',
        error: {
          code: 'TOOL_NOT_FOUND',
          message: 'Unknown tool "calendar_teleport"',
          details: { available_tools: expect.arrayContaining(['hub_echo']) },
          retryable: false,
        },
        metadata: { execution_time_ms: expect.any(Number), api_calls: 0, request_id: expect.any(String) },
      });
    });

    it('when the inputs break the tool schema, then 400 VALIDATION_ERROR names each path', async () => {
      const res = await execute(anExecuteBody({ inputs: { message: 42, colour: 'red' } })).expect(400);
      expect(res.body.tool).toBe('hub_echo');
      expect(res.body.error).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'Invalid inputs for hub_echo',
        details: {
          issues: [
            { path: 'inputs.message', message: 'Invalid input: expected string, received number' },
            { path: 'inputs.colour', message: 'unknown field' },
          ],
        },
        retryable: false,
      });
    });

    it('when the envelope is wrong, then every problem is listed and tool is echoed when readable', async () => {
      const res = await execute({ tool: 'hub_echo', agent_id: 'agent-7', customer_id: 12, inputs: {}, extra: true }).expect(400);
      expect(res.body.tool).toBe('hub_echo');
      expect(res.body.error.details.issues).toEqual([
        { path: 'agent_id', message: 'must be a UUID' },
        { path: 'customer_id', message: 'must be a UUID' },
        { path: 'extra', message: 'unknown field' },
      ]);
    });

    it('when the tool field is missing or not a string, then tool is null in the envelope', async () => {
      const missing = await execute({ ...anExecuteBody(), tool: undefined }).expect(400);
      expect(missing.body.tool).toBeNull();
      const numeric = await execute({ ...anExecuteBody(), tool: 7 }).expect(400);
      expect(numeric.body.tool).toBeNull();
      expect(numeric.body.error.details.issues).toEqual([{ path: 'tool', message: 'Invalid input: expected string, received number' }]);
    });

    it.each([
      ['an array', [1, 2]],
      ['a string', 'message'],
      ['null', null],
      ['a number', 3],
    ])('when inputs is %s, then 400 says inputs must be an object', async (_what, inputs) => {
      const res = await execute({ ...anExecuteBody(), inputs }).expect(400);
      expect(res.body.error.details.issues).toEqual([{ path: 'inputs', message: 'must be a JSON object' }]);
    });

    it('when context has an unknown key (a typo like requestId), then it is refused rather than silently ignored', async () => {
      const res = await execute(anExecuteBody({ context: { requestId: 'x' } as never })).expect(400);
      expect(res.body.error.details.issues).toEqual([{ path: 'context.requestId', message: 'unknown field' }]);
    });

    it('when request_id is not header-safe, then it is refused and a generated id is used', async () => {
      const res = await execute(anExecuteBody({ context: { request_id: 'bad id\r\nX-Injected: 1' } })).expect(400);
      expect(res.body.error.details.issues).toEqual([{ path: 'context.request_id', message: 'must be 1-128 visible ASCII characters' }]);
      expect(res.headers['x-injected']).toBeUndefined();
      expect(res.body.metadata.request_id).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('when another field is wrong but context.request_id is fine, then the error still carries that request_id', async () => {
      const res = await execute({ ...anExecuteBody({ context: { request_id: 'keep-me' } }), agent_id: 'x' }).expect(400);
      expect(res.body.metadata.request_id).toBe('keep-me');
      expect(res.headers['x-request-id']).toBe('keep-me');
    });

    it('when user_id is empty or has control characters, then it is refused', async () => {
      await execute(anExecuteBody({ user_id: '' })).expect(400);
      const res = await execute(anExecuteBody({ user_id: 'bob\u0000' })).expect(400);
      expect(res.body.error.details.issues).toEqual([{ path: 'user_id', message: 'must not contain control characters' }]);
    });

    it('when the body is not JSON, then 400 VALIDATION_ERROR without echoing the body', async () => {
      const res = await api()
        .post(EXECUTE)
        .set('Authorization', serviceAuth())
        .set('Content-Type', 'application/json')
        .send('{"tool": "hub_echo", secret-ish garbage')
        .expect(400);
      expect(res.body.error).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'The request body is not valid JSON',
        details: { issues: [{ path: '(root)', message: 'invalid JSON' }] },
        retryable: false,
      });
      expect(JSON.stringify(res.body)).not.toContain('garbage');
      expect(res.body.tool).toBeNull();
    });

    it('when the JSON body is a bare string or array, then it is refused', async () => {
      await api().post(EXECUTE).set('Authorization', serviceAuth()).set('Content-Type', 'application/json').send('"hub_echo"').expect(400);
      const res = await execute([anExecuteBody()]).expect(400);
      expect(res.body.error.details.issues[0]).toEqual({ path: '(root)', message: 'Invalid input: expected object, received array' });
    });

    it('when the Content-Type is not JSON, then 400 says what to send', async () => {
      const res = await api()
        .post(EXECUTE)
        .set('Authorization', serviceAuth())
        .set('Content-Type', 'text/plain')
        .send(JSON.stringify(anExecuteBody()))
        .expect(400);
      expect(res.body.error.message).toBe('The request body must be a JSON object sent with Content-Type: application/json');
    });

    it('when the body is 2 MiB, then 413 PAYLOAD_TOO_LARGE', async () => {
      const res = await execute(anExecuteBody({ inputs: { message: 'x'.repeat(2 * 1024 * 1024) } })).expect(413);
      expect(res.body.error).toEqual({
        code: 'PAYLOAD_TOO_LARGE',
        message: 'The request body exceeds the 1 MiB limit',
        details: { limit_bytes: 1048576 },
        retryable: false,
      });
    });

    it('when the body is just under 1 MiB, then it is parsed (and refused by the tool schema, not the limit)', async () => {
      const res = await execute(anExecuteBody({ inputs: { message: 'x'.repeat(1024 * 1024 - 300) } })).expect(400);
      expect(res.body.error.details.issues[0].path).toBe('inputs.message');
    });

    it('when JSON is nested thousands deep, then 400 — not a crash', async () => {
      const deep = '['.repeat(50_000) + ']'.repeat(50_000);
      const raw = `{"tool":"hub_echo","agent_id":"${randomUUID()}","customer_id":"${randomUUID()}","inputs":{"message":${deep}}}`;
      const res = await api().post(EXECUTE).set('Authorization', serviceAuth()).set('Content-Type', 'application/json').send(raw).expect(400);
      expect(res.body.error.message).toBe('The request body is nested deeper than 32 levels');
    });

    it('when a __proto__ key is sent, then it is refused and pollutes nothing', async () => {
      const raw = `{"tool":"hub_echo","agent_id":"${randomUUID()}","customer_id":"${randomUUID()}","inputs":{"message":"x","__proto__":{"polluted":true}}}`;
      const res = await api().post(EXECUTE).set('Authorization', serviceAuth()).set('Content-Type', 'application/json').send(raw).expect(400);
      expect(res.body.error.message).toBe('The request body uses the reserved key "__proto__"');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('when a tool throws, then 500 INTERNAL_ERROR without internals, logged with the request id', async () => {
      const res = await execute(anExecuteBody({ tool: 'test_crash', inputs: {}, context: { request_id: 'crash-1' } })).expect(500);
      expect(res.body.error).toEqual({
        code: 'INTERNAL_ERROR',
        message: 'The tool failed unexpectedly; the error has been logged',
        retryable: false,
      });
      expect(JSON.stringify(res.body)).not.toMatch(/boom|stack|at /);
      const logged = hub.logs.entries().find((e) => e.msg === 'tool failed unexpectedly');
      expect(logged).toMatchObject({ request_id: 'crash-1', tool: 'test_crash', err: { message: expect.stringContaining('boom') } });
    });

    it('when the method is wrong, then the error envelope says there is no such endpoint', async () => {
      const res = await api().get(EXECUTE).set('Authorization', serviceAuth()).expect(404);
      expect(res.body.error).toMatchObject({ code: 'RESOURCE_NOT_FOUND', message: `No endpoint GET ${EXECUTE}` });
    });
  });
});
