import type { Express } from 'express';
import { hubExpress, withErrorAnswers } from '../../http/hub-express';
import { type Lifecycle, logAccess } from '../../http/request-context';
import type { Logger } from '../../logger';
import type { HubMetrics } from '../../observability/metrics';
import type { Db } from '../../store/db';
import { apiDocsRoute } from './api-docs';
import { type RedisCheck, healthz, readyz } from './health';
import { metricsRoute } from './metrics';
import { openApiRoute } from './openapi';

/** What operators, probes and browsers ask of every Hub: liveness, readiness, the API description and its reference. */
export function mountOperations(app: Express, deps: { db: Db; redis: RedisCheck | null; lifecycle: Lifecycle }): void {
  const { lifecycle } = deps;
  // Browsers ask every origin for /favicon.ico (the console's pages name their own icon; the connect pages do
  // not): an empty answer, cached for a day, rather than a 404 in every browser console.
  app.get('/favicon.ico', (_req, res) => {
    res.writeHead(204, { 'Cache-Control': 'public, max-age=86400' }).end();
    logAccess(res);
  });
  app.get('/healthz', healthz(lifecycle));
  app.get('/readyz', readyz(deps));
  app.get('/openapi.yaml', openApiRoute());
  app.get(['/docs', '/docs/'], apiDocsRoute());
}

/** GET /metrics: on the API's app, or on the app of a listener of its own (HUB_METRICS_PORT). */
export function mountMetrics(app: Express, deps: { metrics: HubMetrics; token: string | undefined }): void {
  app.get('/metrics', metricsRoute(deps.metrics, deps.token));
}

/** The metrics listener's app (HUB_METRICS_PORT): /metrics and nothing else, with the API's envelope for errors. */
export function createMetricsApp(deps: { metrics: HubMetrics; token: string | undefined; logger: Logger; lifecycle: Lifecycle }): Express {
  const app = hubExpress(deps);
  mountMetrics(app, deps);
  return withErrorAnswers(app, deps.logger);
}
