import { ERROR_DOCS, detailsAlwaysSent } from '../error-details';
import { ERROR_CODES, codeToStatus } from '../core/errors';
import { jsonSchema } from '../tools/catalog';
import { pascal, ref } from './openapi-tools';

type Schema = Record<string, unknown>;

/** `INTEGRATION_NOT_CONNECTED` → IntegrationNotConnectedError; `INTERNAL_ERROR` → InternalError. */
const componentName = (code: string) => (code.endsWith('_ERROR') ? pascal(code) : `${pascal(code)}Error`);

const table = () =>
  ['| Code | HTTP | Meaning |', '|---|---|---|', ...ERROR_CODES.map((code) => `| ${code} | ${codeToStatus(code)} | ${ERROR_DOCS[code].meaning} |`)].join('\n');

/**
 * The error part of openapi.yaml, from src/core/errors.ts and src/error-details.ts: ErrorCode (the closed set, with
 * each code's status and meaning), one schema per code whose `details` say what that code carries (required
 * where the Hub always sends it), and Error as their `oneOf`, discriminated by `code` — so a generated client
 * narrows `error.details` by checking `error.code`.
 */
export function errorSchemas(): Record<string, Schema> {
  const branches: Record<string, Schema> = {};
  for (const code of ERROR_CODES) {
    const { meaning, details } = ERROR_DOCS[code];
    const detailsSchema = details === null ? null : jsonSchema(details, 'input');
    const detailsRequired = detailsAlwaysSent(ERROR_DOCS[code]);
    branches[componentName(code)] = {
      type: 'object',
      description: `HTTP ${codeToStatus(code)}. ${meaning}`,
      additionalProperties: false,
      required: ['code', 'message', ...(detailsRequired ? ['details'] : []), 'retryable'],
      properties: {
        code: { type: 'string', const: code },
        message: { type: 'string', description: 'What went wrong, for people and models.' },
        ...(detailsSchema === null ? {} : { details: detailsSchema }),
        retryable: { type: 'boolean', description: 'Whether repeating the same request may succeed.' },
        retry_after_s: { type: 'integer', minimum: 0, description: 'Seconds to wait before retrying (also sent as `Retry-After`).' },
      },
    };
  }
  return {
    ErrorCode: {
      type: 'string',
      enum: [...ERROR_CODES],
      description: `The closed set of error codes; each always comes with the same HTTP status.\n\n${table()}\n`,
    },
    Error: {
      description: 'What failed: `code` says what kind of failure, and decides what `details` hold.',
      oneOf: Object.keys(branches).map(ref),
      discriminator: { propertyName: 'code', mapping: Object.fromEntries(ERROR_CODES.map((code) => [code, ref(componentName(code)).$ref])) },
    },
    ...branches,
  };
}
