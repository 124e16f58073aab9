import { ConfigError } from '../../src/config';
import { createMetrics, statusClass } from '../../src/observability/metrics';
import { traceIdOf } from '../../src/observability/tracing';
import { testConfig } from '../helpers/env';

describe('when the tracing SDK starts', () => {
  const sdk = (env: Record<string, string | undefined>) => testConfig(env).observability.tracingSdk;
  it('when no OTEL_* variable is set, then it does not (the default costs nothing)', () => {
    expect(sdk({})).toBe(false);
  });
  it('when an exporter or an OTLP endpoint is named, then it does', () => {
    expect(sdk({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(sdk({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(sdk({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(sdk({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
  });
  it('when the exporter is none or the SDK is disabled, then it does not, whatever else is set', () => {
    expect(sdk({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
    expect(sdk({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toBe(false);
  });
});

describe('metrics configuration', () => {
  it('when nothing is set, then metrics are on, served on the API port, without a token', () => {
    expect(testConfig().observability).toMatchObject({ metrics: true, metricsPort: undefined, metricsToken: undefined, connectionsTtlMs: 30_000 });
  });
  it('when HUB_METRICS_TOKEN is short, then the configuration is refused without echoing it', () => {
    let error: unknown;
    try {
      testConfig({ HUB_METRICS_TOKEN: 'short-tok' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(String((error as Error).message)).toContain('HUB_METRICS_TOKEN');
    expect(String((error as Error).message)).not.toContain('short-tok');
  });
});

describe('traceIdOf (W3C traceparent)', () => {
  it('when the header is valid, then its trace id', () => {
    expect(traceIdOf('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });
  it('when the header is malformed, upper-case, all-zero or repeated, then none', () => {
    for (const bad of [
      '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01',
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7',
      'x'.repeat(10_000),
    ]) {
      expect(traceIdOf(bad)).toBeUndefined();
    }
    expect(traceIdOf(undefined)).toBeUndefined();
    expect(traceIdOf(['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'])).toBeUndefined();
  });
});

describe('statusClass', () => {
  it('when Google answered, then its class; else what happened instead', () => {
    expect(statusClass(200, undefined)).toBe('2xx');
    expect(statusClass(429, 'rate_limited')).toBe('4xx');
    expect(statusClass(503, 'server_error')).toBe('5xx');
    expect(statusClass(undefined, 'timeout')).toBe('timeout');
    expect(statusClass(undefined, 'network')).toBe('network');
    expect(statusClass(undefined, undefined)).toBe('other');
  });
});

describe('metric series (the per-call recording)', () => {
  it('when values are observed, then the exposition has cumulative buckets, sum and count per series, and counters per label set', async () => {
    const metrics = createMetrics({ knownTools: ['hub_echo'], defaultMetrics: false });
    metrics.toolCall('hub_echo', 'ok', 0.0002);
    metrics.toolCall('hub_echo', 'ok', 0.003);
    metrics.toolCall('hub_echo', 'RATE_LIMITED', 40);
    metrics.toolCall('whatever_an_agent_typed', 'TOOL_NOT_FOUND', 0.001);
    const { body } = await metrics.scrape();
    expect(body).toContain('# TYPE hub_tool_call_duration_seconds histogram');
    expect(body).toContain('hub_tool_calls_total{tool="hub_echo",outcome="ok"} 2');
    expect(body).toContain('hub_tool_calls_total{tool="hub_echo",outcome="RATE_LIMITED"} 1');
    expect(body).toContain('hub_tool_calls_total{tool="(unknown)",outcome="TOOL_NOT_FOUND"} 1');
    expect(body).not.toContain('whatever_an_agent_typed');
    expect(body).toContain('hub_tool_call_duration_seconds_bucket{le="0.0005",tool="hub_echo"} 1');
    expect(body).toContain('hub_tool_call_duration_seconds_bucket{le="0.005",tool="hub_echo"} 2');
    expect(body).toContain('hub_tool_call_duration_seconds_bucket{le="30",tool="hub_echo"} 2');
    expect(body).toContain('hub_tool_call_duration_seconds_bucket{le="+Inf",tool="hub_echo"} 3');
    expect(body).toContain('hub_tool_call_duration_seconds_count{tool="hub_echo"} 3');
    expect(body).toMatch(/hub_tool_call_duration_seconds_sum\{tool="hub_echo"\} 40\.0032/);
  });
});
