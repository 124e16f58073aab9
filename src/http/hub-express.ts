import express, { type Express } from 'express';
import type { Logger } from '../logger';
import { errorHandler, notFound } from './error-handler';
import { type Lifecycle, requestContext } from './request-context';
import { apiSecurityHeaders } from './security-headers';

/** An Express app with the Hub's settings and request context (ids, access line, security headers): routes go next. */
export function hubExpress(deps: { logger: Logger; lifecycle: Lifecycle }): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false); // API answers are not cacheable (Cache-Control: no-store); hashing them is wasted work
  app.use(requestContext({ logger: deps.logger, lifecycle: deps.lifecycle, securityHeaders: apiSecurityHeaders() }));
  return app;
}

/** After every route: unknown paths and errors answer in the contract's envelope. */
export function withErrorAnswers(app: Express, logger: Logger): Express {
  app.use(notFound);
  app.use(errorHandler(logger));
  return app;
}
