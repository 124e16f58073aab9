import { ConfigError, HUB_CONFIG_SCHEMA, loadConfig } from '../../src/config';
import { renderConfigTables } from '../../src/config-docs';
import { OUTLOOK_MAILBOX_LIMITS } from '../../src/providers/microsoft/limits';
import { testEnv } from '../helpers/env';

/**
 * Outlook's per-mailbox limits in the Microsoft section: Microsoft's published figures by default, lower values
 * accepted, anything looser than Microsoft publishes refused (it could only meet Graph's 429s).
 */

const limitsOf = (env: Record<string, string>) => loadConfig(testEnv(env)).microsoft.mailboxLimits;
const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(testEnv(env));
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
};

describe("Outlook's mailbox limits in the configuration", () => {
  it("when nothing is set, then they are Microsoft's published figures: 10,000 requests per 600 s, 4 in flight, 150 MB per 300 s", () => {
    expect(limitsOf({})).toEqual({ requestsPerWindow: 10_000, windowS: 600, maxInFlight: 4, uploadBytesPerWindow: 157_286_400, uploadWindowS: 300 });
    const published = (what: string) => OUTLOOK_MAILBOX_LIMITS.find((l) => l.what === what)!;
    expect(limitsOf({})).toEqual({
      requestsPerWindow: published('requests').limit,
      windowS: published('requests').windowS,
      maxInFlight: published('concurrent_requests').limit,
      uploadBytesPerWindow: published('upload_bytes').limit,
      uploadWindowS: published('upload_bytes').windowS,
    });
  });

  it.each([
    [
      { HUB_OUTLOOK_QUOTA_REQUESTS: '5', HUB_OUTLOOK_QUOTA_WINDOW_S: '2', HUB_OUTLOOK_MAX_IN_FLIGHT: '1' },
      { requestsPerWindow: 5, windowS: 2, maxInFlight: 1, uploadBytesPerWindow: 157_286_400, uploadWindowS: 300 },
    ],
    [
      { HUB_OUTLOOK_QUOTA_REQUESTS: '1000', HUB_OUTLOOK_QUOTA_WINDOW_S: '60' },
      { requestsPerWindow: 1000, windowS: 60, maxInFlight: 4, uploadBytesPerWindow: 157_286_400, uploadWindowS: 300 },
    ],
    [
      { HUB_OUTLOOK_QUOTA_REQUESTS: '10000', HUB_OUTLOOK_QUOTA_WINDOW_S: '3600' },
      { requestsPerWindow: 10_000, windowS: 3600, maxInFlight: 4, uploadBytesPerWindow: 157_286_400, uploadWindowS: 300 },
    ],
    [
      { HUB_OUTLOOK_QUOTA_REQUESTS: ' 20 ', HUB_OUTLOOK_MAX_IN_FLIGHT: '' },
      { requestsPerWindow: 20, windowS: 600, maxInFlight: 4, uploadBytesPerWindow: 157_286_400, uploadWindowS: 300 },
    ],
    [
      { HUB_OUTLOOK_UPLOAD_BYTES: '262144', HUB_OUTLOOK_UPLOAD_WINDOW_S: '30' },
      { requestsPerWindow: 10_000, windowS: 600, maxInFlight: 4, uploadBytesPerWindow: 262_144, uploadWindowS: 30 },
    ],
    [
      { HUB_OUTLOOK_UPLOAD_BYTES: '157286400', HUB_OUTLOOK_UPLOAD_WINDOW_S: '3600' },
      { requestsPerWindow: 10_000, windowS: 600, maxInFlight: 4, uploadBytesPerWindow: 157_286_400, uploadWindowS: 3600 },
    ],
  ])('when the limits are set to %j (no looser than Microsoft), then they are used', (env, expected) => {
    expect(limitsOf(env)).toEqual(expected);
  });

  it('when a value is not a positive integer, then each is refused naming its variable', () => {
    expect(problemsOf({ HUB_OUTLOOK_QUOTA_REQUESTS: '0', HUB_OUTLOOK_QUOTA_WINDOW_S: '1.5', HUB_OUTLOOK_MAX_IN_FLIGHT: 'four' })).toEqual([
      'HUB_OUTLOOK_MAX_IN_FLIGHT: must be a positive integer (at most 4)',
      'HUB_OUTLOOK_QUOTA_REQUESTS: must be a positive integer (at most 10000)',
      'HUB_OUTLOOK_QUOTA_WINDOW_S: must be an integer between 1 and 3600',
    ]);
    expect(problemsOf({ HUB_OUTLOOK_MAX_IN_FLIGHT: '-1' })).toEqual(['HUB_OUTLOOK_MAX_IN_FLIGHT: must be a positive integer (at most 4)']);
    expect(problemsOf({ HUB_OUTLOOK_UPLOAD_BYTES: '150MB', HUB_OUTLOOK_UPLOAD_WINDOW_S: '0' })).toEqual([
      'HUB_OUTLOOK_UPLOAD_BYTES: must be a positive integer (at most 157286400)',
      'HUB_OUTLOOK_UPLOAD_WINDOW_S: must be an integer between 1 and 3600',
    ]);
  });

  it("when a value is above Microsoft's published limit, then it is refused saying that Graph would only answer 429", () => {
    expect(problemsOf({ HUB_OUTLOOK_MAX_IN_FLIGHT: '5', HUB_OUTLOOK_QUOTA_REQUESTS: '10001' })).toEqual([
      'HUB_OUTLOOK_MAX_IN_FLIGHT: must be at most 4: Microsoft publishes 4 concurrent requests per app and mailbox, and above that Graph only answers 429',
      'HUB_OUTLOOK_QUOTA_REQUESTS: must be at most 10000: Microsoft publishes 10,000 requests per 10 minutes per app and mailbox, and above that Graph only answers 429',
    ]);
    expect(problemsOf({ HUB_OUTLOOK_UPLOAD_BYTES: '157286401' })).toEqual([
      'HUB_OUTLOOK_UPLOAD_BYTES: must be at most 157286400: Microsoft publishes 150 MB (157286400 bytes) of uploads per 5 minutes per app and mailbox, and above that Graph only answers 429',
    ]);
  });

  it("when the upload window is shorter than Microsoft's 300 s and its bytes faster than Microsoft's rate, then the pair is refused", () => {
    const faster = [
      "HUB_OUTLOOK_UPLOAD_BYTES: at most 157286400 / ⌈300 / HUB_OUTLOOK_UPLOAD_WINDOW_S⌉ bytes: Microsoft publishes 150 MB (157286400 bytes) of uploads per 300 s per app and mailbox, and a faster budget only meets Graph's 429",
    ];
    expect(problemsOf({ HUB_OUTLOOK_UPLOAD_WINDOW_S: '60' })).toEqual(faster); // 150 MB a minute: five times Microsoft's rate
    expect(problemsOf({ HUB_OUTLOOK_UPLOAD_BYTES: '31457280', HUB_OUTLOOK_UPLOAD_WINDOW_S: '60' })).toEqual([]); // 30 MB a minute: the same rate
    expect(problemsOf({ HUB_OUTLOOK_UPLOAD_BYTES: '31457281', HUB_OUTLOOK_UPLOAD_WINDOW_S: '60' })).toEqual(faster);
  });

  it("when the window is shorter than Microsoft's and the budget faster than its rate, then the pair is refused", () => {
    const faster = [
      "HUB_OUTLOOK_QUOTA_REQUESTS: at most 10,000 / ⌈600 / HUB_OUTLOOK_QUOTA_WINDOW_S⌉ requests: Microsoft publishes 10,000 requests per 600 s per app and mailbox, and a faster budget only meets Graph's 429",
    ];
    expect(problemsOf({ HUB_OUTLOOK_QUOTA_WINDOW_S: '60' })).toEqual(faster); // 10,000 a minute: ten times Microsoft's rate
    expect(problemsOf({ HUB_OUTLOOK_QUOTA_REQUESTS: '101', HUB_OUTLOOK_QUOTA_WINDOW_S: '6' })).toEqual(faster);
    expect(problemsOf({ HUB_OUTLOOK_QUOTA_REQUESTS: '100', HUB_OUTLOOK_QUOTA_WINDOW_S: '6' })).toEqual([]); // the same rate
    // 600 s hold ⌈600 / 7⌉ = 86 windows of 7 s: 116 requests each fit in 10,000, 117 do not.
    expect(problemsOf({ HUB_OUTLOOK_QUOTA_REQUESTS: '116', HUB_OUTLOOK_QUOTA_WINDOW_S: '7' })).toEqual([]);
    expect(problemsOf({ HUB_OUTLOOK_QUOTA_REQUESTS: '117', HUB_OUTLOOK_QUOTA_WINDOW_S: '7' })).toEqual(faster);
  });

  it('when the configuration page lists them, then each has its sentence and its default', () => {
    const table = renderConfigTables([HUB_CONFIG_SCHEMA]);
    expect(table).toContain('| `HUB_OUTLOOK_MAX_IN_FLIGHT` | `4` |');
    expect(table).toContain('| `HUB_OUTLOOK_QUOTA_REQUESTS` | `10000` |');
    expect(table).toContain('| `HUB_OUTLOOK_QUOTA_WINDOW_S` | `600` |');
    expect(table).toContain('| `HUB_OUTLOOK_UPLOAD_BYTES` | `157286400` |');
    expect(table).toContain('| `HUB_OUTLOOK_UPLOAD_WINDOW_S` | `300` |');
  });
});
