import { availableParallelism } from 'node:os';
import { type EnvOf, integer } from './variables';

/** What shapes tool results. */
export interface ToolsConfig {
  /** The longest message body returned (characters; longer is cut, flagged truncated), and how far a send is verified. */
  tools: { maxBodyChars: number; sendVerifyMaxMessages: number };
  /** HTML mail → text in worker threads, within a time budget. */
  html: HtmlConversionConfig;
}

export interface HtmlConversionConfig {
  /** Worker threads converting HTML. */
  workers: number;
  /** Longest one message's conversion may run. */
  taskTimeoutMs: number;
  /** Longest all conversions of one tool call may take together, waiting included. */
  callBudgetMs: number;
}

export const toolsVariables = {
  HUB_MAX_BODY_CHARS: integer(100_000, 1_000, 10_000_000).describe(
    'Longest message body the email tools return; longer ones are cut and flagged `truncated: true`.',
  ),
  HUB_HTML_WORKERS: integer(Math.max(1, Math.min(4, availableParallelism() - 1)), 1, 64)
    .meta({ defaultText: 'cores − 1, within 1–4' }) // machine-dependent: the README must not change with the machine
    .describe('Worker threads converting HTML mail to text off the event loop (default: one per core beyond the first, 1–4).'),
  HUB_HTML_TIMEOUT_MS: integer(1_000, 50, 60_000).describe(
    "Longest one message's HTML-to-text conversion may run; past it the worker is stopped and the body is the tag-stripped text (body_degraded).",
  ),
  HUB_HTML_BUDGET_MS: integer(5_000, 100, 300_000).describe(
    'Longest all HTML conversions of one tool call may take together, queue wait included; bodies not converted by then are tag-stripped (body_degraded).',
  ),
  HUB_SEND_VERIFY_MAX_MESSAGES: integer(50, 1, 500).describe(
    'Most sent messages email_send reads back (newest first) when it checks whether an uncertain earlier send went out; past it the outcome is reported unknown.',
  ),
};

export type ToolsEnv = EnvOf<typeof toolsVariables>;

export const toolsSection = {
  variables: toolsVariables,
  load: (e: ToolsEnv): ToolsConfig => ({
    tools: { maxBodyChars: e.HUB_MAX_BODY_CHARS, sendVerifyMaxMessages: e.HUB_SEND_VERIFY_MAX_MESSAGES },
    html: { workers: e.HUB_HTML_WORKERS, taskTimeoutMs: e.HUB_HTML_TIMEOUT_MS, callBudgetMs: e.HUB_HTML_BUDGET_MS },
  }),
};
