import { createServer } from 'node:http';

/** Baseline: bare node:http — read the body, JSON.parse it, answer the same JSON. */
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const out = JSON.stringify({
      success: true,
      tool: body.tool,
      result: body.inputs,
      metadata: { execution_time_ms: 0, api_calls: 0, request_id: 'baseline' },
    });
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(out) });
    res.end(out);
  });
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.send?.({ port: (server.address() as { port: number }).port });
});
