import { unsupportedNode } from '../../src/node-version';

/** Jest's global setup: on an unsupported Node the run stops here with the one sentence, not minutes later. */
export default function checkNode(): void {
  const problem = unsupportedNode(process.version);
  if (problem !== null) throw new Error(problem);
}
