// A worker for the pool's tests (plain JavaScript: loaded by node:worker_threads as it is). It speaks the
// pool's protocol: `{ready: true}` once loaded, then one answer per task. A task busy-waits `spinMs` (to stand
// for CPU-bound work the event loop cannot interrupt), then answers with its label, or fails when asked to.
'use strict';
const { parentPort } = require('node:worker_threads');

parentPort.on('message', ({ id, input }) => {
  const until = Date.now() + (input.spinMs || 0);
  while (Date.now() < until) {
    // busy: only terminating the worker stops this
  }
  if (input.fail) parentPort.postMessage({ id, ok: false, error: 'failed as asked' });
  else parentPort.postMessage({ id, ok: true, value: input.label });
});
parentPort.postMessage({ ready: true });
