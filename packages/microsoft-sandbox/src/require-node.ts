/**
 * Imported first by the command (main.ts): an unsupported Node is refused with one sentence before anything
 * else loads (CommonJS runs requires in order). The package is tested on Node 22 and 24, as the Hub is.
 */
const MIN_NODE_MAJOR = 22;

const major = Number(/^v?(\d+)\./.exec(process.version)?.[1] ?? 0);
if (major < MIN_NODE_MAJOR) {
  process.stderr.write(`This is Node.js ${process.version}, but the Microsoft sandbox needs Node.js ${MIN_NODE_MAJOR} or newer.\n`);
  process.exit(1);
}
