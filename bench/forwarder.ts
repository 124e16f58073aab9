import { createServer, request } from 'node:http';

/**
 * bench:realcall's floor for any proxy: a bare node:http forwarder that streams each request to FORWARD_TO and
 * the answer back, headers as they are, no parsing, no logging. What a call through it costs beyond the direct
 * call is one more process on the path — the part of the Hub-added latency no proxy can avoid on this machine.
 */

const target = new URL(process.env.FORWARD_TO ?? ''); // bench entry point: its one knob
const server = createServer((req, res) => {
  const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`forwarder listening on http://127.0.0.1:${address.port}`);
});
