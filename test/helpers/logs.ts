import { Writable } from 'node:stream';
import { type Logger, createLogger } from '../../src/logger';
import { KEY_1, KEY_2, SECRET_A, SECRET_B } from './env';

export interface CapturedLogs {
  logger: Logger;
  /** Every line written so far, as written (after redaction). */
  lines: string[];
  text(): string;
  entries(): Record<string, unknown>[];
}

/** A real logger (same redaction as production) whose output the test can read. */
export function captureLogs(level = 'info'): CapturedLogs {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((l) => l !== ''),
      );
      done();
    },
  });
  const logger = createLogger({ level, destination, secrets: [SECRET_A, SECRET_B, KEY_1, KEY_2] });
  return {
    logger,
    lines,
    text: () => lines.join('\n'),
    entries: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
