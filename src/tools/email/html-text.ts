import type { HtmlConversionConfig } from '../../config';
import type { Logger } from '../../logger';
import { type HtmlResult, type HtmlTask, stripTags } from '../../workers/html-to-text';
import { type WorkerPool, createWorkerPool, workerEntry } from '../../workers/pool';

/**
 * HTML mail as text, for reading HTML-only mail and for the text/plain alternative of HTML mail sent. The HTML
 * comes from mail senders (or agents), so it is converted off the event loop, in a worker pool, within bounds:
 *  - input beyond `htmlInputLimit` characters is cut first (flagged `truncated`);
 *  - one conversion runs at most `taskTimeoutMs` (its worker is terminated past it), and all conversions of
 *    one tool call share `callBudgetMs` (and the call's deadline), queue wait included;
 *  - whatever does not convert in time — or is too deeply nested, or finds the queue full — degrades to the
 *    tag-stripped text (`degraded`), which is linear and cheap enough for the event loop. Never an error.
 * The conversion itself is src/workers/html-to-text.ts.
 */

/** Conversions waiting for a worker, across all callers; more fail over to stripped text at once. */
export const HTML_QUEUE_MAX = 256;

/** HTML beyond this is cut before conversion: enough markup for `maxChars` of text, bounded for hostile mail. */
export const htmlInputLimit = (maxChars: number) => Math.min(1_000_000, Math.max(200_000, maxChars * 5));

export interface HtmlText {
  text: string;
  /** The input or the text was cut to its limit. */
  truncated: boolean;
  /** Tag-stripped text rather than the converted layout (too slow, too deep, or no worker free). */
  degraded: boolean;
}

/** What a tool calls: one tool call's conversions (its budget, its deadline, its customer's place in the queue). */
export type HtmlToText = (html: string, options: { maxChars: number; signal?: AbortSignal }) => Promise<HtmlText>;

export interface HtmlConverter {
  forCall(call: { key: string; deadline: () => AbortSignal; logger: () => Logger }): HtmlToText;
  close(): Promise<void>;
}

export function createHtmlConverter(config: HtmlConversionConfig): HtmlConverter {
  const pool: WorkerPool<HtmlTask, HtmlResult> = createWorkerPool({
    entry: workerEntry(`${__dirname}/../../workers`, __filename, 'html-to-text'),
    workerData: { role: 'html-to-text' },
    size: config.workers,
    maxQueue: HTML_QUEUE_MAX,
    // A quarter per customer: a flood of one customer's hostile mail degrades its own bodies, never the others'.
    // One call queues few at a time (Gmail reads are capped per mailbox), so an ordinary search never meets it.
    maxQueuePerKey: HTML_QUEUE_MAX / 4,
    // A conversion's DOM is a few times its input; a runaway one ends its own worker, not the process.
    resourceLimits: { maxOldGenerationSizeMb: 256, stackSizeMb: 8 },
  });
  return {
    forCall({ key, deadline, logger }) {
      let budget: AbortSignal | undefined; // from the call's first conversion on
      return async (html, { maxChars, signal }) => {
        budget ??= AbortSignal.any([deadline(), AbortSignal.timeout(config.callBudgetMs)]);
        const limit = htmlInputLimit(maxChars);
        const input = html.length > limit ? html.slice(0, limit) : html;
        const cut = input.length < html.length;
        const outcome = await pool.run(
          { html: input, maxChars },
          { key, timeoutMs: config.taskTimeoutMs, signal: signal ? AbortSignal.any([budget, signal]) : budget },
        );
        if (outcome.ok) return { ...outcome.value, truncated: outcome.value.truncated || cut };
        // The caller no longer wants this text (its answer is already decided): no fallback work for nothing.
        if (signal?.aborted) return { text: '', truncated: false, degraded: true };
        logger().warn({ reason: outcome.reason, html_chars: html.length }, 'HTML body degraded to stripped text');
        const stripped = stripTags(input, maxChars);
        return { text: stripped.text, truncated: stripped.truncated || cut, degraded: true };
      };
    },
    close: () => pool.close(),
  };
}
