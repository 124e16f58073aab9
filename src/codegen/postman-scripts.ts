/**
 * The scripts of the Postman collection's requests (Postman's `pm` sandbox, run by Postman and newman): what each
 * request asserts, and what it keeps from its answer for the requests after it (src/codegen/postman-flow.ts).
 */

/** A failed assertion shows the answer's error, not only "expected false to equal true". */
const WHY = "body.error ? `${body.error.code}: ${body.error.message}` : 'no error in the answer'";

/** What every execute request checks: the tool ran (200, `success: true`), with the result fields its schema requires. */
export const successTests = (tool: string, required: readonly string[], keeps: Record<string, string>) => [
  'const body = pm.response.json();',
  `pm.test('200: ${tool} ran', () => {`,
  `  pm.expect(body.success, ${WHY}).to.equal(true);`,
  '  pm.response.to.have.status(200);',
  `  pm.expect(body.tool).to.equal('${tool}');`,
  '});',
  ...(required.length > 0
    ? [`pm.test('the result has ${required.join(', ')}', () => pm.expect(body.result).to.include.all.keys(${JSON.stringify(required)}));`]
    : []),
  "pm.test('metadata: request_id, api_calls, execution_time_ms', () => {",
  "  pm.expect(body.metadata.request_id).to.be.a('string');",
  "  pm.expect(body.metadata.api_calls).to.be.a('number');",
  "  pm.expect(body.metadata.execution_time_ms).to.be.a('number');",
  '});',
  ...Object.entries(keeps).flatMap(([name, expression]) => [
    // Cleared first, so a failed answer leaves nothing stale for the requests that send it.
    `pm.collectionVariables.unset('${name}');`,
    `pm.test('it answers ${expression.replace(/^body\./, '')}, which the next requests send as {{${name}}}', () => {`,
    `  const value = ${expression};`,
    "  pm.expect(value).to.be.a('string').that.is.not.empty;",
    `  pm.collectionVariables.set('${name}', value);`,
    '});',
  ]),
];

/** Before a request that sends what an earlier one kept: say which to run first, rather than send `{{eventId}}`. */
export const takesCheck = (takes: Record<string, string>, keptBy: Map<string, string>) =>
  Object.values(takes)
    .filter((name) => keptBy.has(name))
    .map((name) => `if (!pm.collectionVariables.get('${name}')) throw new Error('{{${name}}} is not set: run ${keptBy.get(name)} first');`);

/** What a request that documents an error checks: that very status and code, and the detail it names. */
export const errorTests = (status: number, code: string, detail?: string) => [
  'const body = pm.response.json();',
  `pm.test('${status} ${code}', () => {`,
  `  pm.response.to.have.status(${status});`,
  '  pm.expect(body.success).to.equal(false);',
  `  pm.expect(body.error.code, ${WHY}).to.equal('${code}');`,
  "  pm.expect(body.error.message).to.be.a('string');",
  '  pm.expect(body.error.retryable).to.equal(false);',
  '});',
  ...(detail ? [detail] : []),
];

/** A request's events: its pre-request lines (when any), then its tests. */
export const events = (test: string[], prerequest: string[] = []) => [
  ...(prerequest.length > 0 ? [{ listen: 'prerequest', script: { type: 'text/javascript', exec: prerequest } }] : []),
  { listen: 'test', script: { type: 'text/javascript', exec: test } },
];
