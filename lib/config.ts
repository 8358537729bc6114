import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { parsePrices, parseRetrySchedule, parseSecretsKey } from './configValues.js';

/**
 * The whole configuration of the service, read once from the environment and validated here.
 * Every variable is documented in the environment table of docs/operations.md. The chains it serves (CHAINS_FILE,
 * presets) are validated in lib/chains.ts, whose types it re-exports for the code that names them.
 */

export type { ChainConfig, TokenConfig } from './chains.js';

const boolish = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no'])
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

/** A feature switch: `on` (the default where it is used) or `off`. */
const onOff = z
  .enum(['on', 'off', '1', '0', 'true', 'false'])
  .transform((v) => v === 'on' || v === '1' || v === 'true');

/**
 * A delay in milliseconds from `min` up to the longest one Node's timers take (2^31-1 ms, ~24.8 days):
 * a longer one fires after 1 ms instead (a poll every millisecond, a request timed out at once).
 */
const MAX_TIMER_MS = 2_147_483_647;
const ms = (min: number) => z.coerce.number().int().min(min).max(MAX_TIMER_MS);

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  PUBLIC_URL: z.string().url().optional(),
  OPERATOR_ORIGINS: z.string().optional(),
  INTERNAL_TOKEN: z.string().min(16).optional(),
  /** Read-only bearer for /graphql: queries only, no mutation and no key data. */
  ANALYTICS_TOKEN: z.string().min(16).optional(),
  /** statement_timeout of the /graphql pool, so one analytics query cannot hold a connection for long. */
  ANALYTICS_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  DATABASE_URL: z.string().url().optional(),
  /** Connections of the public paths' store pool (the analytics, export and webhook pools are apart). */
  DATABASE_POOL_MAX: z.coerce.number().int().min(2).max(200).default(10),
  /** How long an unused connection of the process's pools stays open before it is closed. */
  DATABASE_IDLE_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
  REDIS_URL: z.string().url().optional(),
  /** Prefix of every Redis key, so deployments (and test runs) can share one Redis. */
  REDIS_PREFIX: z.string().max(64).default('gw:'),
  /** Bound of every Redis command (ms): past it the caller falls back to memory (lib/redisBreaker.ts). */
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(5).max(10_000).default(50),
  DOCS_URL: z.string().url().optional(),
  TRUST_PROXY: boolish.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().min(1).default('./.data'),
  /** JSON file of chains (the devnet manifest's shape); when set, no devnet is started. */
  CHAINS_FILE: z.string().min(1).optional(),
  /** First port of the three devnet anvil chains (base, arc, baseSepolia). */
  DEVNET_PORT: z.coerce.number().int().min(1024).max(65000).default(18545),
  /** Milliseconds between the devnet activity bot's ticks; 0: no activity. */
  DEVNET_ACTIVITY_MS: z.coerce
    .number()
    .int()
    .refine((v) => v === 0 || (v >= 100 && v <= MAX_TIMER_MS), {
      message: `must be 0 (no activity) or 100..${MAX_TIMER_MS}`,
    })
    .default(3000),
  INDEXER: z.enum(['embedded', 'off']).default('embedded'),
  /** Blocks behind the head the indexer stays, on chains whose config does not say (`confirmations`). */
  INDEXER_CONFIRMATIONS: z.coerce.number().int().min(0).max(1000).default(12),
  /** Blocks below the head whose hashes the indexer keeps: the deepest reorg it rewinds (deeper: re-index). */
  INDEXER_REORG_WINDOW: z.coerce.number().int().min(1).max(100_000).default(256),
  /** Longest the first pass waits for a chain before the first roll-up (a backfill goes on after it). */
  INDEXER_FIRST_PASS_SECONDS: z.coerce.number().min(0.1).max(86_400).default(30),
  /** Seconds between two progress lines of a backfill (a sync far behind the head). */
  INDEXER_PROGRESS_SECONDS: z.coerce.number().min(0.1).max(3600).default(10),
  /** Seconds without a completed sync of a chain before /readyz names it degraded (its indexer stuck). */
  INDEXER_STALL_SECONDS: z.coerce.number().min(1).max(86_400).default(60),
  INDEXER_POLL_MS: ms(20).default(1000),
  INDEXER_CHUNK_BLOCKS: z.coerce.number().int().min(1).max(100000).default(2000),
  ROLLUP_REFRESH_MS: ms(100).default(5000),
  HEALTH_CHECK_MS: ms(100).default(30000),
  HEALTH_CHECK_MAX_WALLETS: z.coerce.number().int().min(1).default(100),
  /** Makers' wallets read for pullable liquidity (indexer/walletReader.ts): interval, and wallets per run and chain. */
  WALLET_READ_MS: ms(100).default(60_000),
  WALLET_READ_MAX_WALLETS: z.coerce.number().int().min(1).max(100_000).default(1000),
  /**
   * USD price per token symbol over the chains file's sources, e.g. `EURC=1.08,WETH=3000`: an operator's
   * override. Unset: prices come from the chains file (a token's `usd` or `usdFeed`) alone.
   */
  TOKEN_PRICES_USD: z.string().default(''),
  /** The longest a price feed's answer is used before it is read again (chain/prices.ts). */
  PRICE_REFRESH_MS: ms(1000).default(60_000),
  PILOT_BLOCK_WINDOW: z.coerce.number().int().min(1).max(100000).default(500),
  REQUEST_TIMEOUT_MS: ms(100).default(10000),
  /**
   * How long an idle kept-alive connection stays open. Behind a load balancer that reuses connections,
   * set it above the balancer's idle timeout, or the balancer may send on a socket this side just closed.
   */
  KEEP_ALIVE_TIMEOUT_MS: ms(100).max(600_000).default(5000),
  /** On SIGTERM: how long /readyz answers 503 while every request is still served, before the listener closes. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(120_000).default(5000),
  RPC_TIMEOUT_MS: ms(50).default(3000),
  /** Timeout of the quote simulation's eth_call per RPC endpoint (default: RPC_TIMEOUT_MS). */
  RPC_QUOTE_TIMEOUT_MS: ms(50).optional(),
  /** Timeout of the indexer's eth_getLogs and header reads per RPC endpoint. */
  RPC_LOGS_TIMEOUT_MS: ms(100).default(20_000),
  /** Extra passes over a chain's RPC URLs after all failed (0: one pass; failover is not a retry). */
  RPC_RETRY_COUNT: z.coerce.number().int().min(0).max(5).default(0),
  RPC_RETRY_DELAY_MS: z.coerce.number().int().min(0).max(10_000).default(150),
  /** First backoff of a failed RPC URL (doubles per failure, up to RPC_BACKOFF_MAX_MS; also caps Retry-After). */
  RPC_BACKOFF_MS: z.coerce.number().int().min(10).max(600_000).default(1000),
  RPC_BACKOFF_MAX_MS: z.coerce.number().int().min(10).max(3_600_000).default(30_000),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(65536),
  /** GET /v1/positions/export: exports one process streams at once, in all and per key. */
  EXPORT_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(4),
  EXPORT_CONCURRENCY_PER_KEY: z.coerce.number().int().min(1).max(1000).default(2),
  /** An export whose client takes no bytes for this long is cut (its socket closed, its slot freed). */
  EXPORT_IDLE_TIMEOUT_MS: ms(100).default(30_000),
  /** The part of the event loop's time a process's exports take together (1: as much as they can). */
  EXPORT_LOOP_SHARE: z.coerce.number().min(0.01).max(1).default(0.1),
  /** CORS on the public reads and a key's origins on /v1 (rest/cors.ts). */
  CORS: onOff.default(true),
  /** Cache-Control, ETag and 304 on the reads (rest/httpCache.ts). */
  HTTP_CACHE: onOff.default(true),
  /** gzip / br of bodies of at least COMPRESSION_MIN_BYTES when the client asks. */
  COMPRESSION: onOff.default(true),
  COMPRESSION_MIN_BYTES: z.coerce.number().int().min(0).max(10_485_760).default(1024),
  /** Bearer token of GET /metrics; unset: /metrics is not served. */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** One info log line per request (method, route, status, duration, request id, bucket). */
  ACCESS_LOG: z.enum(['on', 'off']).default('on'),
  /** GET /api/events: the resume window (events older or beyond it are pruned by the indexer). */
  EVENTS_RETAIN_HOURS: z.coerce.number().int().min(1).max(720).default(24),
  EVENTS_RETAIN_COUNT: z.coerce.number().int().min(1).max(10_000_000).default(10_000),
  /** GET /api/events: the `: ping` comment interval, and the open streams allowed per process and per client. */
  EVENTS_HEARTBEAT_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
  EVENTS_MAX_STREAMS: z.coerce.number().int().min(1).max(100_000).default(1000),
  EVENTS_MAX_STREAMS_PER_CLIENT: z.coerce.number().int().min(1).max(1000).default(4),
  /** Webhook URLs may resolve to private, loopback or link-local addresses (default: only in the self-contained mode). */
  WEBHOOK_ALLOW_PRIVATE: boolish.optional(),
  /** Webhook URLs may be plain http (default: only in the self-contained mode). */
  WEBHOOK_ALLOW_HTTP: boolish.optional(),
  /** Delays between the attempts of a delivery, e.g. `5s,30s,2m,1h`; after the last one the endpoint is disabled. */
  WEBHOOK_RETRY_SCHEDULE: z.string().default('5s,30s,2m,10m,30m,1h,2h,4h,8h,8h'),
  /** Bound of one delivery attempt (connect, TLS, request and response head). */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** `off`: this process queues and serves webhooks but delivers none (another replica does). */
  WEBHOOK_WORKER: onOff.default(true),
  /** Deliveries one process makes at once. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(8),
  /** position.health_changed of one position to one endpoint: at most one per this interval (changes within it coalesce). */
  WEBHOOK_HEALTH_COALESCE_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  /** Failed attempts in a row after which an endpoint's circuit opens (its due attempts put off, not made). */
  WEBHOOK_CIRCUIT_FAILURES: z.coerce.number().int().min(1).max(1000).default(3),
  /** How long an opened circuit puts attempts off at first; each failed probe doubles it, up to 5 minutes. */
  WEBHOOK_CIRCUIT_OPEN_MS: z.coerce.number().int().min(10).max(300_000).default(5000),
  /** Seconds the previous secret keeps signing after a rotation. */
  WEBHOOK_ROTATION_OVERLAP_S: z.coerce
    .number()
    .int()
    .min(0)
    .max(30 * 86_400)
    .default(86_400),
  /** 32 bytes (64 hex characters or base64) sealing the webhook secrets at rest (AES-256-GCM). */
  WEBHOOK_SECRETS_KEY: z.string().optional(),
});

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  operatorOrigins: string[];
  internalToken: string;
  internalTokenGenerated: boolean;
  analyticsToken: string | undefined;
  analyticsStatementTimeoutMs: number;
  databaseUrl: string | undefined;
  databasePoolMax: number;
  databaseIdleMs: number;
  /** How long opening a store connection, or waiting for a free one, may take (then 503). */
  databaseConnectTimeoutMs: number;
  redisUrl: string | undefined;
  redisPrefix: string;
  redisCommandTimeoutMs: number;
  docsUrl: string;
  trustProxy: boolean;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  dataDir: string;
  chainsFile: string | undefined;
  devnetPort: number;
  devnetActivityMs: number;
  indexer: 'embedded' | 'off';
  indexerConfirmations: number;
  indexerReorgWindow: number;
  indexerProgressSeconds: number;
  indexerStallSeconds: number;
  indexerFirstPassSeconds: number;
  indexerPollMs: number;
  indexerChunkBlocks: number;
  rollupRefreshMs: number;
  /** Background health check of subscribed positions (position.health_changed): interval, and wallets per run. */
  healthCheckMs: number;
  healthCheckMaxWallets: number;
  walletReadMs: number;
  walletReadMaxWallets: number;
  /** TOKEN_PRICES_USD by upper-case symbol: overrides of the chains file's price sources. */
  priceOverridesUsd: Record<string, number>;
  priceRefreshMs: number;
  pilotBlockWindow: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  shutdownGraceMs: number;
  rpcTimeoutMs: number;
  rpcQuoteTimeoutMs: number;
  rpcLogsTimeoutMs: number;
  rpcRetryCount: number;
  rpcRetryDelayMs: number;
  rpcBackoffMs: number;
  rpcBackoffMaxMs: number;
  bodyLimitBytes: number;
  cors: boolean;
  httpCache: boolean;
  compression: boolean;
  compressionMinBytes: number;
  metricsToken: string | undefined;
  accessLog: boolean;
  events: {
    retainHours: number;
    retainCount: number;
    heartbeatMs: number;
    maxStreams: number;
    maxStreamsPerClient: number;
  };
  exports: { concurrency: number; perKey: number; idleTimeoutMs: number; loopShare: number };
  webhooks: WebhookConfig;
}

export interface WebhookConfig {
  allowPrivate: boolean;
  allowHttp: boolean;
  /** Delay in ms before each retry; its length is the number of retries after the first attempt. */
  retryScheduleMs: number[];
  timeoutMs: number;
  worker: boolean;
  concurrency: number;
  /** position.health_changed: at most one per position and endpoint per this interval. */
  healthCoalesceMs: number;
  /** Failed attempts in a row that open an endpoint's circuit, and how long it is open at first. */
  circuitFailures: number;
  circuitOpenMs: number;
  rotationOverlapSeconds: number;
  /** The AES-256-GCM key of the secrets at rest; undefined: stored as given (a warning at start). */
  secretsKey: Buffer | undefined;
}

function origin(url: string): string {
  return new URL(url).origin;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${detail}`);
  }
  const e = parsed.data;
  const publicUrl = (e.PUBLIC_URL ?? `http://${e.HOST}:${e.PORT}`).replace(/\/+$/, '');
  const operatorOrigins = (e.OPERATOR_ORIGINS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(origin);
  const internalToken = e.INTERNAL_TOKEN ?? randomBytes(24).toString('base64url');
  if (e.ANALYTICS_TOKEN !== undefined && e.ANALYTICS_TOKEN === e.INTERNAL_TOKEN) {
    throw new Error('invalid configuration: ANALYTICS_TOKEN: must differ from INTERNAL_TOKEN');
  }
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    operatorOrigins,
    internalToken,
    internalTokenGenerated: e.INTERNAL_TOKEN === undefined,
    analyticsToken: e.ANALYTICS_TOKEN,
    analyticsStatementTimeoutMs: e.ANALYTICS_STATEMENT_TIMEOUT_MS,
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    databaseIdleMs: e.DATABASE_IDLE_MS,
    databaseConnectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    redisCommandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
    docsUrl: (e.DOCS_URL ?? `${publicUrl}/docs`).replace(/\/+$/, ''),
    trustProxy: e.TRUST_PROXY ?? false,
    logLevel: e.LOG_LEVEL,
    dataDir: e.DATA_DIR,
    chainsFile: e.CHAINS_FILE,
    devnetPort: e.DEVNET_PORT,
    devnetActivityMs: e.DEVNET_ACTIVITY_MS,
    indexer: e.INDEXER,
    indexerConfirmations: e.INDEXER_CONFIRMATIONS,
    indexerReorgWindow: e.INDEXER_REORG_WINDOW,
    indexerProgressSeconds: e.INDEXER_PROGRESS_SECONDS,
    indexerStallSeconds: e.INDEXER_STALL_SECONDS,
    indexerFirstPassSeconds: e.INDEXER_FIRST_PASS_SECONDS,
    indexerPollMs: e.INDEXER_POLL_MS,
    indexerChunkBlocks: e.INDEXER_CHUNK_BLOCKS,
    rollupRefreshMs: e.ROLLUP_REFRESH_MS,
    healthCheckMs: e.HEALTH_CHECK_MS,
    healthCheckMaxWallets: e.HEALTH_CHECK_MAX_WALLETS,
    walletReadMs: e.WALLET_READ_MS,
    walletReadMaxWallets: e.WALLET_READ_MAX_WALLETS,
    priceOverridesUsd: parsePrices(e.TOKEN_PRICES_USD),
    priceRefreshMs: e.PRICE_REFRESH_MS,
    pilotBlockWindow: e.PILOT_BLOCK_WINDOW,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    rpcTimeoutMs: e.RPC_TIMEOUT_MS,
    rpcQuoteTimeoutMs: e.RPC_QUOTE_TIMEOUT_MS ?? e.RPC_TIMEOUT_MS,
    rpcLogsTimeoutMs: e.RPC_LOGS_TIMEOUT_MS,
    rpcRetryCount: e.RPC_RETRY_COUNT,
    rpcRetryDelayMs: e.RPC_RETRY_DELAY_MS,
    rpcBackoffMs: e.RPC_BACKOFF_MS,
    rpcBackoffMaxMs: Math.max(e.RPC_BACKOFF_MAX_MS, e.RPC_BACKOFF_MS),
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    cors: e.CORS,
    httpCache: e.HTTP_CACHE,
    compression: e.COMPRESSION,
    compressionMinBytes: e.COMPRESSION_MIN_BYTES,
    metricsToken: e.METRICS_TOKEN,
    accessLog: e.ACCESS_LOG === 'on',
    events: {
      retainHours: e.EVENTS_RETAIN_HOURS,
      retainCount: e.EVENTS_RETAIN_COUNT,
      heartbeatMs: e.EVENTS_HEARTBEAT_MS,
      maxStreams: e.EVENTS_MAX_STREAMS,
      maxStreamsPerClient: e.EVENTS_MAX_STREAMS_PER_CLIENT,
    },
    exports: {
      concurrency: e.EXPORT_CONCURRENCY,
      perKey: Math.min(e.EXPORT_CONCURRENCY_PER_KEY, e.EXPORT_CONCURRENCY),
      idleTimeoutMs: e.EXPORT_IDLE_TIMEOUT_MS,
      loopShare: e.EXPORT_LOOP_SHARE,
    },
    webhooks: {
      // The self-contained mode (no DATABASE_URL, no CHAINS_FILE) is a local demo: its receivers are local too.
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE ?? (e.DATABASE_URL === undefined && e.CHAINS_FILE === undefined),
      allowHttp: e.WEBHOOK_ALLOW_HTTP ?? (e.DATABASE_URL === undefined && e.CHAINS_FILE === undefined),
      retryScheduleMs: parseRetrySchedule(e.WEBHOOK_RETRY_SCHEDULE),
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      worker: e.WEBHOOK_WORKER,
      concurrency: e.WEBHOOK_CONCURRENCY,
      healthCoalesceMs: e.WEBHOOK_HEALTH_COALESCE_MS,
      circuitFailures: e.WEBHOOK_CIRCUIT_FAILURES,
      circuitOpenMs: e.WEBHOOK_CIRCUIT_OPEN_MS,
      rotationOverlapSeconds: e.WEBHOOK_ROTATION_OVERLAP_S,
      secretsKey: parseSecretsKey(e.WEBHOOK_SECRETS_KEY),
    },
  };
}

/**
 * With PORT=0 the port is known only once listening: the defaults derived from it (PUBLIC_URL,
 * DOCS_URL) are computed again from the real port. Explicit values stay as given.
 */
export function withListenPort(config: Config, port: number): Config {
  if (config.port !== 0) return config;
  const placeholder = `http://${config.host}:0`;
  const publicUrl = config.publicUrl === placeholder ? `http://${config.host}:${port}` : config.publicUrl;
  const docsUrl = config.docsUrl === `${placeholder}/docs` ? `${publicUrl}/docs` : config.docsUrl;
  return { ...config, port, publicUrl, docsUrl };
}
