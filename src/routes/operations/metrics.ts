import { hash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { HubFailure, hubError } from '../../core/errors';
import { sendText } from '../../http/respond';
import type { HubMetrics } from '../../observability/metrics';

const sha256 = (value: string) => hash('sha256', value, 'buffer');
const BEARER = /^Bearer +([^\s]+) *$/i;

/**
 * GET /metrics — Prometheus' text exposition. With HUB_METRICS_TOKEN, only `Authorization: Bearer <token>`:
 * digests compared with timingSafeEqual, so the answer's timing says nothing about how much of a guess was right.
 */
export function metricsRoute(metrics: HubMetrics, token: string | undefined): RequestHandler {
  const expected = token === undefined ? undefined : sha256(token);
  const challenge = { 'WWW-Authenticate': 'Bearer realm="hub-metrics"' };
  return async (req, res, next) => {
    if (expected) {
      const match = BEARER.exec(req.headers.authorization ?? '');
      if (!match || !timingSafeEqual(expected, sha256(match[1]!))) {
        next(new HubFailure(hubError('UNAUTHORIZED', 'The metrics endpoint requires "Authorization: Bearer <HUB_METRICS_TOKEN>"', { headers: challenge })));
        return;
      }
    }
    const { contentType, body } = await metrics.scrape();
    sendText(res, 200, contentType, body);
  };
}
