import type { ErrorDetails, HUB_ERROR_CODES } from './tools.generated.js';

/** Every code the Hub answers with (generated from the Hub's closed set). */
export type HubErrorCode = (typeof HUB_ERROR_CODES)[number];

/** An error the Hub answered with, discriminated by `code`: `switch (error.code)` narrows `details`. */
export type HubError = {
  [C in HubErrorCode]: {
    code: C;
    message: string;
    /** Whether the same call may succeed later (the client already retried those within its budget). */
    retryable: boolean;
    /** Seconds to wait before retrying, when the Hub said. */
    retry_after_s?: number;
    /**
     * As the Hub declares them per code (src/error-details.ts, generated into tools.generated.ts): closed types,
     * so a misspelled key does not compile; `setup_url` is a string for every INTEGRATION_* code.
     */
    details: ErrorDetails[C];
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
