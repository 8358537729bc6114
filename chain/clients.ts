import {
  BaseError,
  type Chain,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  createPublicClient,
  defineChain,
  ExecutionRevertedError,
  HttpRequestError,
  type HttpTransport,
  http,
  type PublicClient,
  RawContractError,
  RpcRequestError,
  SocketClosedError,
  TimeoutError,
} from 'viem';
import type { ChainConfig } from '../lib/config.js';
import { ApiError, isApiError } from '../lib/errors.js';
import type { Metrics } from '../lib/metrics.js';
import type { ChainRegistry } from './registry.js';

export type ChainClient = PublicClient<HttpTransport, Chain>;

/** One read-only viem client per chain key. The service never holds a wallet client. */
export interface ChainClients {
  /** The client of a configured chain; 422 UNSUPPORTED_CHAIN for an unknown key. */
  get(key: string): ChainClient;
  /** The viem chain definition (with its multicall3 address) of a configured chain. */
  chain(key: string): Chain;
}

/** The viem chain of a configured chain: `contracts.multicall3` lets `client.multicall` batch reads. */
export function viemChainOf(config: ChainConfig): Chain {
  return defineChain({
    id: config.chainId,
    name: config.name ?? config.key,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [config.rpcUrl] } },
    contracts: { multicall3: { address: config.multicall as `0x${string}` } },
    testnet: config.testnet,
  });
}

export function createChainClient(
  config: ChainConfig,
  options: { rpcTimeoutMs: number; metrics?: Metrics },
): ChainClient {
  return createPublicClient({
    chain: viemChainOf(config),
    // No retries: a slow or dead upstream must surface as UPSTREAM_* within the request's budget.
    transport: http(config.rpcUrl, {
      timeout: options.rpcTimeoutMs,
      retryCount: 0,
      fetchFn: options.metrics?.rpcFetch(config.key, 'gateway'),
    }),
    // viem's default 4 s polling makes block numbers stale and receipts slow on fast chains.
    pollingInterval: 50,
  });
}

export function createChainClients(
  registry: ChainRegistry,
  options: { rpcTimeoutMs: number; metrics?: Metrics },
): ChainClients {
  const clients = new Map<string, ChainClient>();
  for (const config of registry.list()) clients.set(config.key, createChainClient(config, options));
  return {
    get(key) {
      const client = clients.get(key);
      if (client) return client;
      registry.require(key);
      throw new Error(`no client for chain "${key}"`);
    },
    chain(key) {
      const client = clients.get(key);
      if (client) return client.chain;
      registry.require(key);
      throw new Error(`no client for chain "${key}"`);
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
      cause: err,
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
    return new ApiError('UPSTREAM_UNAVAILABLE', `The RPC node of ${where} is unavailable.`, { cause: err });
  }
  return new ApiError('INTERNAL', 'Internal error.', { cause: err });
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
