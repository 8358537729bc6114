import {
  BaseError,
  type Chain,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  createPublicClient,
  defineChain,
  ExecutionRevertedError,
  HttpRequestError,
  type PublicClient,
  RawContractError,
  RpcRequestError,
  SocketClosedError,
  TimeoutError,
  type Transport,
} from 'viem';
import type { ChainConfig, Config } from '../lib/config.js';
import { ApiError, isApiError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';
import { type RpcEndpoints, redactRpcUrl, redactUrls } from './endpoints.js';
import { nodeHttpFetch } from './nodeFetch.js';
import type { ChainRegistry } from './registry.js';
import { createRpcTransport, endpointsOf, type RpcCallKind } from './transport.js';

export type ChainClient = PublicClient<Transport, Chain>;

/** One read-only viem client per chain key. The service never holds a wallet client. */
export interface ChainClients {
  /** The client of a configured chain; 422 UNSUPPORTED_CHAIN for an unknown key. */
  get(key: string): ChainClient;
  /** The quote simulation's client of the chain: node:http keep-alive, the quote timeout. */
  simulation(key: string): ChainClient;
  /** The viem chain definition (with its multicall3 address) of a configured chain. */
  chain(key: string): Chain;
  /** The health of the chain's RPC endpoints, shared by its clients. */
  endpoints(key: string): RpcEndpoints;
  /** Checks the chain id of every RPC URL of every chain (at start; never rejects). */
  verify(): Promise<void>;
}

/** How the service reaches RPC nodes (lib/config.ts RPC_*). Only the read timeout is required. */
export interface RpcClientOptions {
  /** Timeout of a read (eth_call of the reads, multicall, block number) per endpoint. */
  rpcTimeoutMs: number;
  /** Timeout of the quote simulation's eth_call per endpoint (default: rpcTimeoutMs). */
  quoteTimeoutMs?: number;
  retryCount?: number;
  retryDelayMs?: number;
  backoffMs?: number;
  backoffMaxMs?: number;
  metrics?: Metrics;
  logger?: Logger;
}

/** The RPC options of the service's configuration. */
export function rpcClientOptions(
  config: Pick<
    Config,
    | 'rpcTimeoutMs'
    | 'rpcQuoteTimeoutMs'
    | 'rpcRetryCount'
    | 'rpcRetryDelayMs'
    | 'rpcBackoffMs'
    | 'rpcBackoffMaxMs'
  >,
  extras: { metrics?: Metrics; logger?: Logger } = {},
): RpcClientOptions {
  return {
    rpcTimeoutMs: config.rpcTimeoutMs,
    quoteTimeoutMs: config.rpcQuoteTimeoutMs,
    retryCount: config.rpcRetryCount,
    retryDelayMs: config.rpcRetryDelayMs,
    backoffMs: config.rpcBackoffMs,
    backoffMaxMs: config.rpcBackoffMaxMs,
    ...extras,
  };
}

const DEFAULT_BACKOFF_MS = 1_000;
const DEFAULT_BACKOFF_MAX_MS = 30_000;

/** The endpoints of a chain with the backoff of `options`. */
export function chainEndpoints(config: ChainConfig, options: RpcClientOptions): RpcEndpoints {
  return endpointsOf(config, {
    backoffMs: options.backoffMs ?? DEFAULT_BACKOFF_MS,
    backoffMaxMs: options.backoffMaxMs ?? DEFAULT_BACKOFF_MAX_MS,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });
}

/** The viem chain of a configured chain: `contracts.multicall3` lets `client.multicall` batch reads. */
export function viemChainOf(config: ChainConfig): Chain {
  return defineChain({
    id: config.chainId,
    name: config.name ?? config.key,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    // Only the origin: viem's chain object is printed in some of its errors.
    rpcUrls: { default: { http: [redactRpcUrl(config.rpcUrl)] } },
    contracts: { multicall3: { address: config.multicall as `0x${string}` } },
    testnet: config.testnet,
  });
}

/**
 * A read-only client of the chain over all its RPC URLs (chain/transport.ts). No retries by default:
 * a slow or dead upstream must surface as UPSTREAM_* within the request's budget; failover to the
 * next URL is not a retry.
 */
export function createChainClient(
  config: ChainConfig,
  options: RpcClientOptions & { kind?: RpcCallKind; endpoints?: RpcEndpoints },
): ChainClient {
  const kind = options.kind ?? 'read';
  return createPublicClient({
    chain: viemChainOf(config),
    transport: createRpcTransport({
      endpoints: options.endpoints ?? chainEndpoints(config, options),
      timeoutMs: kind === 'quote' ? (options.quoteTimeoutMs ?? options.rpcTimeoutMs) : options.rpcTimeoutMs,
      retryCount: options.retryCount ?? 0,
      retryDelayMs: options.retryDelayMs ?? 150,
      client: 'gateway',
      // node:http keep-alive costs less per call than undici (chain/nodeFetch.ts), on both kinds: the
      // read client carries the one eth_call of a prepare, a swap and a dock (bench/prepare.ts: with
      // undici the call cost the gateway ~0.8 ms more CPU of its ~3.7 ms per prepare).
      fetchFn: nodeHttpFetch,
      ...(options.metrics ? { metrics: options.metrics } : {}),
    }),
    // viem's default 4 s polling makes block numbers stale and receipts slow on fast chains.
    pollingInterval: 50,
  });
}

export function createChainClients(registry: ChainRegistry, options: RpcClientOptions): ChainClients {
  const byKey = new Map<string, { endpoints: RpcEndpoints; read: ChainClient; quote: ChainClient }>();
  for (const config of registry.list()) {
    const endpoints = chainEndpoints(config, options);
    byKey.set(config.key, {
      endpoints,
      read: createChainClient(config, { ...options, endpoints }),
      quote: createChainClient(config, { ...options, endpoints, kind: 'quote' }),
    });
  }
  const of = (key: string) => {
    const entry = byKey.get(key);
    if (entry) return entry;
    registry.require(key);
    throw new Error(`no client for chain "${key}"`);
  };
  return {
    get: (key) => of(key).read,
    simulation: (key) => of(key).quote,
    chain: (key) => of(key).read.chain,
    endpoints: (key) => of(key).endpoints,
    verify: async () => {
      await Promise.all([...byKey.values()].map((entry) => entry.endpoints.verifyAll()));
    },
  };
}

function findCause(err: unknown, match: (e: unknown) => boolean): unknown {
  if (match(err)) return err;
  if (err instanceof BaseError) return err.walk(match) ?? undefined;
  let current: unknown = err;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (match(current)) return current;
    current = current.cause;
  }
  return undefined;
}

/**
 * True when the node answered and the call reverted (or hit no code): the caller decides what a
 * revert means (an unprocessable order, a missing contract…), it is not an upstream fault.
 */
export function isContractRevert(err: unknown): boolean {
  return (
    findCause(
      err,
      (e) =>
        e instanceof ContractFunctionRevertedError ||
        e instanceof ContractFunctionZeroDataError ||
        e instanceof ExecutionRevertedError ||
        e instanceof RawContractError,
    ) !== undefined
  );
}

/**
 * Maps an RPC failure to the service's error: a timeout → 504 UPSTREAM_TIMEOUT, a refused or broken
 * connection, an HTTP error or a JSON-RPC error → 503 UPSTREAM_UNAVAILABLE (both retryable). A contract
 * revert is not classified: `null` tells the caller to handle it (see `isContractRevert`). An ApiError
 * passes through unchanged; anything else that is not a viem error is an INTERNAL fault.
 */
export function classifyRpcError(err: unknown, chainKey?: string): ApiError | null {
  if (isApiError(err)) return err;
  if (isContractRevert(err)) return null;
  const where = chainKey === undefined ? 'the chain' : `chain "${chainKey}"`;
  if (findCause(err, (e) => e instanceof TimeoutError) !== undefined) {
    return new ApiError('UPSTREAM_TIMEOUT', `The RPC node of ${where} did not answer in time.`, {
      cause: redactedCause(err),
    });
  }
  const unavailable =
    findCause(
      err,
      (e) =>
        e instanceof HttpRequestError ||
        e instanceof RpcRequestError ||
        e instanceof SocketClosedError ||
        isConnectionError(e),
    ) !== undefined;
  if (unavailable || err instanceof BaseError) {
    return new ApiError('UPSTREAM_UNAVAILABLE', `The RPC node of ${where} is unavailable.`, {
      cause: redactedCause(err),
    });
  }
  return new ApiError('INTERNAL', 'Internal error.', { cause: err });
}

/**
 * The cause kept on an UPSTREAM_* error (logged as `err` by rest/app.ts): viem's message names the
 * URL it called, whose path or query may hold a provider's API key. Only origins remain.
 */
function redactedCause(err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  const cause = new Error(redactUrls(message));
  cause.name = err instanceof Error ? err.name : 'Error';
  return cause;
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ETIMEDOUT',
]);

function isConnectionError(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  return e instanceof TypeError && e.message === 'fetch failed';
}
