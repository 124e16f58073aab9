import { randomUUID } from 'node:crypto';
import { SECRET_A, SECRET_B } from '../helpers/env';
import { anExecuteBody } from '../helpers/factories';
import { client } from '../helpers/http';
import { buildTestHub, type TestHub } from '../helpers/hub';

/** Every internal route, as an agent service would call it. */
const ROUTES: [string, string][] = [
  ['post', '/api/internal/tools/execute/'],
  ['get', '/api/internal/tools/'],
  ['get', `/api/internal/integrations/status/${randomUUID()}/`],
  ['get', '/api/internal/no-such-route'],
];

const oneCharOff = (s: string) => s.slice(0, -1) + (s.endsWith('a') ? 'b' : 'a');

describe('ServiceSecret authentication', () => {
  let hub: TestHub;
  const call = (method: string, path: string, authorization?: string) => {
    const test = method === 'post' ? client(hub.app).post(path).send(anExecuteBody()) : client(hub.app).get(path);
    return authorization === undefined ? test : test.set('Authorization', authorization);
  };

  beforeAll(async () => {
    hub = await buildTestHub();
  });
  afterAll(() => hub.close());

  describe.each(ROUTES)('%s %s', (method, path) => {
    it.each([
      ['missing', undefined, 'Missing Authorization header; send "Authorization: ServiceSecret <secret>"'],
      ['empty', '', 'Missing Authorization header; send "Authorization: ServiceSecret <secret>"'],
      ['another scheme', `Bearer ${SECRET_A}`, 'Malformed Authorization header; expected the ServiceSecret scheme: "ServiceSecret <secret>"'],
      ['the scheme alone', 'ServiceSecret', 'Malformed Authorization header; expected the ServiceSecret scheme: "ServiceSecret <secret>"'],
      ['two values', `ServiceSecret ${SECRET_A} ${SECRET_A}`, 'Malformed Authorization header; expected the ServiceSecret scheme: "ServiceSecret <secret>"'],
      ['wrong', 'ServiceSecret not-the-secret-at-all-but-long-enough-123', 'Invalid service secret'],
      ['almost right (same length, last char off)', `ServiceSecret ${oneCharOff(SECRET_A)}`, 'Invalid service secret'],
      ['almost right (first char off)', `ServiceSecret X${SECRET_A.slice(1)}`, 'Invalid service secret'],
      ['a prefix of the secret', `ServiceSecret ${SECRET_A.slice(0, 20)}`, 'Invalid service secret'],
      ['the secret plus a suffix', `ServiceSecret ${SECRET_A}x`, 'Invalid service secret'],
      ['both secrets glued together', `ServiceSecret ${SECRET_A}${SECRET_B}`, 'Invalid service secret'],
    ])('when the secret is %s, then 401 UNAUTHORIZED', async (_case, authorization, message) => {
      const res = await call(method, path, authorization).expect(401);
      expect(res.body).toEqual({
        success: false,
        tool: null,
        error: { code: 'UNAUTHORIZED', message, retryable: false },
        metadata: { execution_time_ms: expect.any(Number), api_calls: 0, request_id: expect.any(String) },
      });
      expect(res.headers['www-authenticate']).toBe('ServiceSecret realm="hub"');
      expect(JSON.stringify(res.body)).not.toContain(SECRET_A.slice(12));
    });
  });

  it('when either of two live secrets is used (rotation), then both are accepted', async () => {
    await call('post', '/api/internal/tools/execute/', `ServiceSecret ${SECRET_A}`).expect(200);
    await call('post', '/api/internal/tools/execute/', `ServiceSecret ${SECRET_B}`).expect(200);
  });

  it('when the scheme is written in another case or with extra spaces, then it is still recognised (RFC 7235)', async () => {
    await call('get', '/api/internal/tools/', `serviceSECRET   ${SECRET_A}`).expect(200);
  });

  it('when an unauthenticated caller probes an unknown internal path, then it learns nothing (401, not 404)', async () => {
    await call('get', '/api/internal/admin/secret-things').expect(401);
  });

  it('when an unauthenticated caller sends a huge body, then it is refused before the body is read', async () => {
    const res = await client(hub.app)
      .post('/api/internal/tools/execute/')
      .set('Content-Type', 'application/json')
      .send({ ...anExecuteBody(), inputs: { message: 'x'.repeat(2 * 1024 * 1024) } })
      .expect(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });
});
