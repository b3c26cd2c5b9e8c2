import * as otel from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { McpServer } from '../../src/server/mcp-server.js';
import { positiveInteger } from '../../src/protocol/option-checks.js';
import { resolveServerOptions, type McpServerOptions } from '../../src/server/options.js';

const DEFAULTS = {
  capabilities: undefined,
  requestTimeoutMs: 60_000,
  elicitationTimeoutMs: 600_000,
  samplingTimeoutMs: 600_000,
  maxRequestTimeoutMs: 3_600_000,
  progressKeepAliveMs: 15_000,
  validateElicitation: true,
  maxRounds: 8,
  defaultLogLevel: 'info',
  pageSize: 100,
  eras: 'dual',
  requestState: undefined,
  scale: undefined,
  cache: { ttlMs: 0, scope: 'private' },
  maxBatchSize: 100,
  maxRequestsInFlight: 100,
  maxSessions: 10_000,
  exposeErrors: false,
  telemetry: undefined,
};

describe('resolveServerOptions', () => {
  it('fills in the defaults when no options are given', () => {
    expect(resolveServerOptions()).toStrictEqual(DEFAULTS);
    expect(resolveServerOptions({})).toStrictEqual(DEFAULTS);
  });

  it('keeps the options that are given', () => {
    const capabilities = { experimental: { x: {} } };
    const scale = { stateKeys: ['k'.repeat(32)], consumeState: async () => true };
    const telemetry = { api: otel };
    const given = {
      capabilities,
      requestTimeoutMs: 5000,
      elicitationTimeoutMs: 6000,
      samplingTimeoutMs: 7000,
      maxRequestTimeoutMs: 8000,
      progressKeepAliveMs: 500,
      validateElicitation: false,
      maxRounds: 3,
      defaultLogLevel: 'debug',
      pageSize: 2,
      eras: 'modern',
      requestState: { ttlMs: 1000 },
      scale,
      cache: { ttlMs: 60_000, scope: 'public' },
      maxBatchSize: 10,
      maxRequestsInFlight: 20,
      maxSessions: 30,
      exposeErrors: true,
      telemetry,
    } as const;
    expect(resolveServerOptions(given)).toStrictEqual({
      capabilities: { experimental: { x: {} } },
      requestTimeoutMs: 5000,
      elicitationTimeoutMs: 6000,
      samplingTimeoutMs: 7000,
      maxRequestTimeoutMs: 8000,
      progressKeepAliveMs: 500,
      validateElicitation: false,
      maxRounds: 3,
      defaultLogLevel: 'debug',
      pageSize: 2,
      eras: 'modern',
      requestState: { ttlMs: 1000 },
      scale,
      cache: { ttlMs: 60_000, scope: 'public' },
      maxBatchSize: 10,
      maxRequestsInFlight: 20,
      maxSessions: 30,
      exposeErrors: true,
      telemetry,
    });
    expect(resolveServerOptions(given).telemetry).toBe(telemetry);
  });

  it.each([
    ['eras', 'both', 'McpServer option eras must be dual, legacy or modern; got "both"'],
    ['cache', { ttlMs: -1, scope: 'public' }, 'Option cache must be'],
  ] as const)('rejects a wrong %s', (name, value, message) => {
    expect(() => resolveServerOptions({ [name]: value } as McpServerOptions)).toThrow(message);
  });

  it.each(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const)('accepts the log level %s', (level) => {
    expect(resolveServerOptions({ defaultLogLevel: level }).defaultLogLevel).toBe(level);
  });

  const integerOptions = [
    'requestTimeoutMs',
    'elicitationTimeoutMs',
    'samplingTimeoutMs',
    'maxRequestTimeoutMs',
    'pageSize',
    'maxRounds',
    'maxBatchSize',
    'maxRequestsInFlight',
    'maxSessions',
  ] as const;
  const badIntegers: unknown[] = [0, -1, 1.5, '1000', NaN, Infinity, true, {}];
  it.each(integerOptions.flatMap((name) => badIntegers.map((value) => [name, value] as const)))('throws a TypeError naming %s for %j', (name, value) => {
    const options = { [name]: value } as unknown as McpServerOptions;
    expect(() => resolveServerOptions(options)).toThrow(TypeError);
    const bound = name.endsWith('TimeoutMs') ? ' up to 2147483647' : '';
    expect(() => resolveServerOptions(options)).toThrow(`Option ${name} must be a positive integer${bound}; got ${JSON.stringify(value)}`);
  });

  it.each(['requestTimeoutMs', 'elicitationTimeoutMs', 'samplingTimeoutMs', 'maxRequestTimeoutMs'] as const)(
    'rejects %s above 2^31 - 1 ms, where Node timers would fire at once',
    (name) => {
      expect(resolveServerOptions({ [name]: 2_147_483_647 })[name]).toBe(2_147_483_647);
      expect(() => resolveServerOptions({ [name]: 2_147_483_648 })).toThrow(`Option ${name} must be a positive integer up to 2147483647; got 2147483648`);
    },
  );

  it('accepts progressKeepAliveMs 0, which turns the keep-alive off, up to 2^31 - 1 ms', () => {
    expect(resolveServerOptions({ progressKeepAliveMs: 0 }).progressKeepAliveMs).toBe(0);
    expect(resolveServerOptions({ progressKeepAliveMs: 2_147_483_647 }).progressKeepAliveMs).toBe(2_147_483_647);
  });

  it.each([[-1], [1.5], ['1000'], [NaN], [Infinity], [true], [2_147_483_648]])('throws a TypeError naming progressKeepAliveMs for %j', (value) => {
    const options = { progressKeepAliveMs: value } as unknown as McpServerOptions;
    expect(() => resolveServerOptions(options)).toThrow(TypeError);
    expect(() => resolveServerOptions(options)).toThrow(
      `Option progressKeepAliveMs must be 0 (off) or a positive integer up to 2147483647; got ${JSON.stringify(value)}`,
    );
  });

  it.each([['yes'], [1], [0], ['false']])('throws a TypeError naming validateElicitation for %j', (value) => {
    const options = { validateElicitation: value } as unknown as McpServerOptions;
    expect(() => resolveServerOptions(options)).toThrow(TypeError);
    expect(() => resolveServerOptions(options)).toThrow(`McpServer option validateElicitation must be a boolean; got ${JSON.stringify(value)}`);
  });

  it.each([['yes'], [1], [0], ['false']])('throws a TypeError naming exposeErrors for %j', (value) => {
    const options = { exposeErrors: value } as unknown as McpServerOptions;
    expect(() => resolveServerOptions(options)).toThrow(`McpServer option exposeErrors must be a boolean; got ${JSON.stringify(value)}`);
  });

  it.each([['verbose'], ['INFO'], ['warn'], [3], ['']])('throws a TypeError naming defaultLogLevel for %j', (value) => {
    const options = { defaultLogLevel: value } as unknown as McpServerOptions;
    expect(() => resolveServerOptions(options)).toThrow(TypeError);
    expect(() => resolveServerOptions(options)).toThrow(
      `McpServer option defaultLogLevel must be one of debug, info, notice, warning, error, critical, alert, emergency; got ${JSON.stringify(value)}`,
    );
  });

  it.each([[null], ['all'], [5], [true]])('throws a TypeError naming capabilities for %j', (value) => {
    const options = { capabilities: value } as unknown as McpServerOptions;
    expect(() => resolveServerOptions(options)).toThrow(TypeError);
    expect(() => resolveServerOptions(options)).toThrow('McpServer option capabilities must be an object');
  });

  it.each([[null], ['options'], [5]])('throws a TypeError when the options themselves are %j', (value) => {
    expect(() => resolveServerOptions(value as unknown as McpServerOptions)).toThrow(TypeError);
    expect(() => resolveServerOptions(value as unknown as McpServerOptions)).toThrow('McpServer options must be an object');
  });

  it('positiveInteger accepts positive integers and names the option otherwise', () => {
    expect(() => positiveInteger('limit', 1)).not.toThrow();
    expect(() => positiveInteger('limit', 2 ** 31)).not.toThrow();
    expect(() => positiveInteger('limit', 0)).toThrow('Option limit must be a positive integer; got 0');
  });
});

describe('McpServer construction', () => {
  it('throws a TypeError when the server info has no version', () => {
    expect(() => new McpServer({ name: 'x' } as any)).toThrow(TypeError);
    expect(() => new McpServer({ name: 'x' } as any)).toThrow(
      'McpServer needs server info with a name and a version, e.g. new McpServer({ name: "my-server", version: "1.0.0" })',
    );
  });

  it.each([
    ['no info', undefined],
    ['no name', { version: '1.0.0' }],
    ['an empty name', { name: '', version: '1.0.0' }],
    ['an empty version', { name: 'x', version: '' }],
    ['a numeric version', { name: 'x', version: 1 }],
  ])('throws a TypeError for server info with %s', (_label, info) => {
    expect(() => new McpServer(info as any)).toThrow(TypeError);
  });

  it('validates options at construction', () => {
    expect(() => new McpServer({ name: 'x', version: '1.0.0' }, { pageSize: 0 })).toThrow('Option pageSize must be a positive integer; got 0');
  });

  it('exposes the resolved options and the info without instructions', () => {
    const server = new McpServer({ name: 'x', version: '1.0.0', instructions: 'be nice' }, { pageSize: 5 });
    expect(server.options).toStrictEqual({ ...DEFAULTS, pageSize: 5 });
    expect(server.info).toStrictEqual({ name: 'x', version: '1.0.0' });
    expect(server.instructions).toBe('be nice');
  });
});
