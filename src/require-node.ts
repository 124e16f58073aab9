import { unsupportedNode } from './node-version';

/**
 * Imported first by every entry point (server, demo, CLIs). It acts at import on purpose: CommonJS runs
 * requires in order, so this check runs before any other module loads on an unsupported Node.
 */
const problem = unsupportedNode(process.version);
if (problem !== null) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
