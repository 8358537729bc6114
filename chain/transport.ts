/**
 * The one way to reach a chain's RPC: viem's `fallback` over one guarded `http` transport per URL.
 * A guard skips an endpoint its chain's `RpcEndpoints` has backed off, proves the endpoint's chain id
 * before its first use (and after each failure), checks the shape of each result, and reports
 * failures and successes back. `fallback` then moves to the next URL on anything but a revert.
 *
 * Ranking (viem's `rank`) is off: it pings every URL on a timer, which costs provider quota, and the
 * configured order is the operator's preference; health comes from real requests instead.
 */
import { type EIP1193RequestFn, fallback, type HttpTransportConfig, http, type Transport } from 'viem';
import type { Metrics } from '../lib/metrics.js';
import { type RpcEndpoint, RpcEndpoints, RpcMalformedAnswerError, wellFormed } from './endpoints.js';

/** What a client reads: its timeout per request comes from its kind (config RPC_*_TIMEOUT_MS). */
export type RpcCallKind = 'read' | 'quote' | 'logs';

export interface RpcTransportOptions {
  endpoints: RpcEndpoints;
  /** Timeout of one request to one endpoint. */
  timeoutMs: number;
  /** Extra passes over all endpoints after each failed (0: one pass). */
  retryCount?: number;
  /** Base delay between passes (doubles; a Retry-After of the last answer wins). */
  retryDelayMs?: number;
  /** The fetch of each endpoint (node:http keep-alive for quotes), counted per host when `metrics`. */
  fetchFn?: HttpTransportConfig['fetchFn'];
  metrics?: Metrics;
  client: 'gateway' | 'indexer';
  batch?: HttpTransportConfig['batch'];
}

type Request = { method: string; params?: unknown };

function guarded(endpoint: RpcEndpoint, endpoints: RpcEndpoints, options: RpcTransportOptions): Transport {
  const fetchFn = options.metrics
    ? options.metrics.rpcFetch(endpoints.chain.key, options.client, options.fetchFn ?? fetch)
    : options.fetchFn;
  const inner = http(endpoint.url, {
    timeout: options.timeoutMs,
    retryCount: 0,
    ...(fetchFn ? { fetchFn } : {}),
    ...(options.batch ? { batch: options.batch } : {}),
  });
  // The chain-id check of the endpoint, also run at start (RpcEndpoints.verifyAll), outside any request.
  endpoint.probe ??= () => inner({}).request({ method: 'eth_chainId' });
  return (params) => {
    const transport = inner(params);
    const send = transport.request as (args: Request, opts?: unknown) => Promise<unknown>;
    const request = async (args: Request, opts?: unknown): Promise<unknown> => {
      endpoints.admit(endpoint);
      try {
        if (endpoint.verified !== true)
          await endpoints.verify(endpoint, () => send({ method: 'eth_chainId' }));
        const result = await send(args, opts);
        if (!wellFormed(args.method, result)) throw new RpcMalformedAnswerError(endpoint.host, args.method);
        endpoints.succeeded(endpoint);
        return result;
      } catch (error) {
        endpoints.failed(endpoint, error);
        throw error;
      }
    };
    return { ...transport, request: request as EIP1193RequestFn };
  };
}

/** The transport of one chain over all its endpoints. */
export function createRpcTransport(options: RpcTransportOptions): Transport {
  const { endpoints } = options;
  const transports = endpoints.list.map((endpoint) => guarded(endpoint, endpoints, options));
  // One URL and no retry: the guarded transport itself (fallback would rebuild it on every request).
  if (transports.length === 1 && !options.retryCount) return transports[0]!;
  return fallback(transports, {
    rank: false,
    retryCount: options.retryCount ?? 0,
    retryDelay: options.retryDelayMs ?? 150,
  });
}

/** The endpoints of a chain config (its first URL, then its fallbacks). */
export function endpointsOf(
  chain: { key: string; chainId: number; rpcUrl: string; fallbackRpcUrls?: readonly string[] },
  options: ConstructorParameters<typeof RpcEndpoints>[2],
): RpcEndpoints {
  return new RpcEndpoints(chain, [chain.rpcUrl, ...(chain.fallbackRpcUrls ?? [])], options);
}
