import express from 'express';
import request from 'supertest';
import { apiDocsRoute, findApiReference } from '../../src/routes/operations/api-docs';
import { client } from '../helpers/http';
import { type TestHub, buildTestHub } from '../helpers/hub';

/** GET /docs over HTTP: the built HTML reference, compressed when asked, under a CSP that names its scripts. */
describe('API reference page', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await buildTestHub();
  });
  afterAll(() => hub.close());

  test('when a browser asks for /docs with gzip, then it gets the compressed page with a CSP naming its inline scripts by hash', async () => {
    expect(findApiReference()).not.toBeNull(); // npm test builds first
    // superagent inflates a gzip body itself; the header says what was sent (the spec check runs on the next test's page)
    const res = await request(hub.app)
      .get('/docs')
      .set('Accept-Encoding', 'gzip')
      .buffer(true)
      .parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    const html = (res.body as Buffer).toString('utf8');
    expect(html).toContain('<title>Hub API reference</title>');
    expect(html).not.toContain('cdn.redoc.ly');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).toContain("frame-ancestors 'none'");
  });

  test('when the client does not accept gzip, then the page comes as is', async () => {
    const res = await client(hub.app).get('/docs/').set('Accept-Encoding', 'identity').expect(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.text).toContain('<title>Hub API reference</title>');
  });

  test('when the Hub runs from sources without a build, then /docs answers 503 with a page saying how to build it', async () => {
    const app = express();
    app.use((_req, res, next) => {
      res.locals.requestId = 'r-1';
      next();
    });
    app.get('/docs', apiDocsRoute(null));
    const res = await request(app).get('/docs').expect(503);
    expect(res.text).toContain('npm run build');
  });
});
