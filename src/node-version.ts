/**
 * The Node.js releases the Hub runs on, in one place. package.json's `engines` (which `npm ci` enforces through
 * .npmrc's engine-strict), .nvmrc and the check every entry point makes at start agree; a test holds them
 * together. Older releases fail late and obscurely (Express at half speed, mail decoded wrongly, tests timing
 * out), so they are refused before anything else loads.
 */

export const MIN_NODE_MAJOR = 22;
export const RECOMMENDED_NODE_MAJOR = 24;

/** What to do about it, in the words package.json's engines and the start-up check both print. */
export const NODE_ADVICE =
  `the Hub needs Node.js ${MIN_NODE_MAJOR} or newer: install Node.js ${RECOMMENDED_NODE_MAJOR} LTS ` +
  '(`nvm install` reads .nvmrc, or see https://nodejs.org/en/download) and run the command again';

/** One sentence when `version` (as `process.version` spells it) is too old; null when it is supported. */
export function unsupportedNode(version: string): string | null {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1] ?? 0);
  return major >= MIN_NODE_MAJOR ? null : `This is Node.js ${version}, but ${NODE_ADVICE}.`;
}
