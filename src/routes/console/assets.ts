import type { RequestHandler } from 'express';
import { logAccess } from '../../http/request-context';
import type { ConsoleAssets } from '../../console/assets';
import { notFound } from '../../http/error-handler';

/** GET /admin/assets/{digest}/{file} — the console's scripts and stylesheet, cached for a year (the URL changes with them). */
export function assetsRoute(assets: ConsoleAssets | null): RequestHandler {
  return (req, res, next) => {
    const file = assets && req.path.startsWith(assets.base) ? assets.files.get(req.path.slice(assets.base.length)) : undefined;
    if (!file) return notFound(req, res, next);
    res.writeHead(200, [
      'Content-Type',
      file.type,
      'Content-Length',
      String(file.body.length),
      'Cache-Control',
      'public, max-age=31536000, immutable',
      'X-Content-Type-Options',
      'nosniff',
      'Cross-Origin-Resource-Policy',
      'same-origin',
      'X-Request-Id',
      res.locals.requestId,
    ]);
    res.end(file.body);
    logAccess(res);
  };
}
