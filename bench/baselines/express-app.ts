import express from 'express';

/** Baseline: a minimal Express 5 app — express.json and one route answering the same JSON as the Hub. */
const app = express();
app.use(express.json());
app.post('/api/internal/tools/execute/', (req, res) => {
  res.json({
    success: true,
    tool: req.body.tool,
    result: req.body.inputs,
    metadata: { execution_time_ms: 0, api_calls: 0, request_id: 'baseline' },
  });
});
const server = app.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.send?.({ port: (server.address() as { port: number }).port });
});
