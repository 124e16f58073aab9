import type { Response } from 'express';
import './locals';
import { logAccess } from './request-context';

/**
 * Every answer the Hub gives goes out here, with all its headers in one writeHead call: the security headers
 * and `Cache-Control: no-store` (computed once at start), `X-Request-Id`, content type and length. Written
 * straight to Node's response rather than through Express' res.json/res.send, whose per-call content-type
 * re-parsing, charset and freshness logic we never need (all answers are uncacheable JSON or one static file)
 * and which measured ~6% of a hub_echo request's CPU. The access-log line is written once the answer is handed
 * to the socket.
 */
export function sendJson(res: Response, status: number, body: unknown, extraHeaders: readonly string[] = []): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body), extraHeaders);
}

export function sendText(res: Response, status: number, contentType: string, text: string): void {
  send(res, status, contentType, text, []);
}

function send(res: Response, status: number, contentType: string, payload: string, extra: readonly string[]): void {
  const headers = res.locals.baseHeaders.concat(
    extra,
    'X-Request-Id',
    res.locals.requestId,
    'Content-Type',
    contentType,
    'Content-Length',
    String(Buffer.byteLength(payload)),
  );
  res.writeHead(status, headers); // anything set earlier with setHeader (Connection: close) is merged by Node
  res.end(payload); // a HEAD request gets the headers only: Node drops the body
  logAccess(res);
}
