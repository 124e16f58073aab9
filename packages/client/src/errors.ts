import type { HUB_ERROR_CODES } from './tools.generated.js';

/** Every code the Hub answers with (generated from the Hub's closed set). */
export type HubErrorCode = (typeof HUB_ERROR_CODES)[number];

/** What the Hub's error details hold for the codes whose details the contract describes. */
interface KnownDetails {
  /** A person must connect the integration: setup_url is where (always present). */
  INTEGRATION_NOT_CONNECTED: { integration: string; setup_url: string };
  /** Google no longer honours the connection; setup_url, when given, is where a person reconnects it. */
  INTEGRATION_EXPIRED: { integration?: string; setup_url?: string; reason?: string };
  /** Connected without the access the tool needs: what it needs, what was granted, where to fix it. */
  INTEGRATION_PERMISSION_DENIED: { integration?: string; setup_url?: string; required_scopes?: string[]; granted_scopes?: string[] };
  TOOL_NOT_FOUND: { available_tools: string[] };
  VALIDATION_ERROR: { issues: { path: string; message: string }[]; truncated?: true };
  RATE_LIMITED: { scope?: string; limit?: number; window_s?: number };
}

type DetailsOf<C extends HubErrorCode> = C extends keyof KnownDetails ? KnownDetails[C] & { [key: string]: unknown } : { [key: string]: unknown } | undefined;

/** An error the Hub answered with, discriminated by `code`: `switch (error.code)` narrows `details`. */
export type HubError = {
  [C in HubErrorCode]: {
    code: C;
    message: string;
    /** Whether the same call may succeed later (the client already retried those within its budget). */
    retryable: boolean;
    /** Seconds to wait before retrying, when the Hub said. */
    retry_after_s?: number;
    details: DetailsOf<C>;
    /** The HTTP status the Hub answered with. */
    status: number;
  };
}[HubErrorCode];

/** No usable answer from the Hub: it could not be reached, took too long, or answered something not JSON. */
export interface TransportError {
  code: 'NETWORK_ERROR' | 'TIMEOUT' | 'ABORTED' | 'INVALID_RESPONSE';
  message: string;
  /** Never retried by the client (the Hub gave no answer to go by); retrying with the same requestId is safe. */
  retryable: false;
  details: { cause?: unknown; status?: number };
}

export type HubClientError = HubError | TransportError;
