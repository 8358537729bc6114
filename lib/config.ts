import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * The whole configuration of the service, read once from the environment and validated here.
 * Every variable is documented in the README's environment table.
 */

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte address');

export const tokenConfigSchema = z.object({
  symbol: z.string().min(1),
  address,
  decimals: z.number().int().min(0).max(36),
});

export const chainConfigSchema = z.object({
  key: z.string().min(1),
  chainId: z.number().int().positive(),
  name: z.string().optional(),
  rpcUrl: z.string().url(),
  aqua: address,
  router: address,
  /** Multicall3-compatible contract for batched reads. */
  multicall: address,
  feeReceiver: address,
  /** Test networks: only test keys may prepare on them. */
  testnet: z.boolean().default(false),
  tokens: z.array(tokenConfigSchema).min(1),
  /** Symbols POST /v1/positions accepts on this chain (SPEC §2.4); all listed tokens when absent. */
  depositSymbols: z.array(z.string().min(1)).optional(),
  /** First block the indexer reads. */
  startBlock: z.number().int().min(0).default(0),
  /** Demo wallets of the pilot (test network only). */
  pilot: z
    .object({
      maker: address,
      taker: address,
      feeWallet: address,
      strategyHash: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
    })
    .optional(),
});

export type ChainConfig = z.infer<typeof chainConfigSchema>;
export type TokenConfig = z.infer<typeof tokenConfigSchema>;

export const chainsFileSchema = z.object({ chains: z.array(chainConfigSchema).min(1) });

const boolish = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no'])
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

/** A feature switch: `on` (the default where it is used) or `off`. */
const onOff = z
  .enum(['on', 'off', '1', '0', 'true', 'false'])
  .transform((v) => v === 'on' || v === '1' || v === 'true');

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
  /** Seconds between the devnet activity bot's swaps. */
  DEVNET_ACTIVITY_MS: z.coerce.number().int().min(100).default(3000),
  INDEXER: z.enum(['embedded', 'off']).default('embedded'),
  INDEXER_CONFIRMATIONS: z.coerce.number().int().min(0).max(1000).default(0),
  INDEXER_POLL_MS: z.coerce.number().int().min(20).default(1000),
  INDEXER_CHUNK_BLOCKS: z.coerce.number().int().min(1).max(100000).default(2000),
  ROLLUP_REFRESH_MS: z.coerce.number().int().min(100).default(5000),
  /** USD price per token symbol, e.g. `EURC=1.08,WETH=3000`; USDC and USDT default to 1. */
  TOKEN_PRICES_USD: z.string().default('USDC=1,USDT=1,EURC=1.08'),
  PILOT_BLOCK_WINDOW: z.coerce.number().int().min(1).max(100000).default(500),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(10000),
  RPC_TIMEOUT_MS: z.coerce.number().int().min(50).default(3000),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(65536),
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
  indexerPollMs: number;
  indexerChunkBlocks: number;
  rollupRefreshMs: number;
  tokenPricesUsd: Record<string, number>;
  pilotBlockWindow: number;
  requestTimeoutMs: number;
  rpcTimeoutMs: number;
  bodyLimitBytes: number;
  cors: boolean;
  httpCache: boolean;
  compression: boolean;
  compressionMinBytes: number;
  metricsToken: string | undefined;
  accessLog: boolean;
}

function parsePrices(text: string): Record<string, number> {
  const prices: Record<string, number> = {};
  for (const part of text.split(',')) {
    const [symbol, price] = part.split('=').map((s) => s.trim());
    const value = Number(price);
    if (!symbol || !Number.isFinite(value) || value < 0) {
      throw new Error(`TOKEN_PRICES_USD: "${part}" is not SYMBOL=price`);
    }
    prices[symbol.toUpperCase()] = value;
  }
  return prices;
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
    indexerPollMs: e.INDEXER_POLL_MS,
    indexerChunkBlocks: e.INDEXER_CHUNK_BLOCKS,
    rollupRefreshMs: e.ROLLUP_REFRESH_MS,
    tokenPricesUsd: { USDC: 1, USDT: 1, ...parsePrices(e.TOKEN_PRICES_USD) },
    pilotBlockWindow: e.PILOT_BLOCK_WINDOW,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    rpcTimeoutMs: e.RPC_TIMEOUT_MS,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    cors: e.CORS,
    httpCache: e.HTTP_CACHE,
    compression: e.COMPRESSION,
    compressionMinBytes: e.COMPRESSION_MIN_BYTES,
    metricsToken: e.METRICS_TOKEN,
    accessLog: e.ACCESS_LOG === 'on',
  };
}

/** Reads and validates a chains file (CHAINS_FILE, or the devnet manifest). */
export function readChainsFile(path: string): ChainConfig[] {
  const raw: unknown = JSON.parse(readFileSync(path, 'utf8'));
  const parsed = chainsFileSchema.safeParse(raw);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid chains file ${path}: ${detail}`);
  }
  return parsed.data.chains;
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
