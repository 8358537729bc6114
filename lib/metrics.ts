import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../store/db.js';
import type { Logger } from './logger.js';

/** What `fetchFn` of viem's http transport is given and answers. */
type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Route label of a request that no route matched: one label, whatever the path (bounded cardinality). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The Prometheus metrics of one service instance, served at GET /metrics. A Registry of its own, not
 * prom-client's global one: tests and benches start several services in one process.
 *
 * Requests by route, method and status are the `_count` of the latency histogram; the route label is
 * the route's pattern (`/v1/positions/:positionId`), never the raw URL.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requestSeconds = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by route pattern, method and status: latency from the first byte read to the last written',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  /** The histogram's child per label set: prom-client hashes the labels on every `observe` otherwise. */
  private readonly requestChildren = new Map<string, { observe(value: number): void }>();
  private readonly refusals = new Counter({
    name: 'gateway_rate_limit_refusals_total',
    help: 'Requests refused with 429 RATE_LIMITED, by bucket',
    labelNames: ['bucket'] as const,
    registers: [this.registry],
  });
  private readonly indexerHead = new Gauge({
    name: 'gateway_indexer_head_block',
    help: 'Latest block number the chain node reported to the indexer',
    labelNames: ['chain'] as const,
    registers: [this.registry],
  });
  private readonly indexerIndexed = new Gauge({
    name: 'gateway_indexer_indexed_block',
    help: 'Last block the indexer stored',
    labelNames: ['chain'] as const,
    registers: [this.registry],
  });
  private readonly indexerLag = new Gauge({
    name: 'gateway_indexer_lag_blocks',
    help: 'Blocks between the chain head and the last block stored (confirmations included)',
    labelNames: ['chain'] as const,
    registers: [this.registry],
  });
  private readonly rpcCalls = new Counter({
    name: 'gateway_rpc_requests_total',
    help: 'HTTP requests to chain RPC nodes (a JSON-RPC batch is one), by chain and client (gateway or indexer)',
    labelNames: ['chain', 'client'] as const,
    registers: [this.registry],
  });
  private readonly rpcErrors = new Counter({
    name: 'gateway_rpc_errors_total',
    help: 'RPC requests that failed: no connection, timeout or a non-2xx HTTP status, by chain and client',
    labelNames: ['chain', 'client'] as const,
    registers: [this.registry],
  });
  private readonly cacheLookups = new Counter({
    name: 'gateway_response_cache_lookups_total',
    help: 'Response cache lookups of the cached reads (stats), by result (hit or miss)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Text exposition of every metric (Content-Type: `contentType`). */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  observeRequest(route: string, method: string, status: number, seconds: number): void {
    const m = METHODS.has(method) ? method : 'OTHER';
    const key = `${route} ${m} ${status}`;
    let child = this.requestChildren.get(key);
    if (!child) {
      child = this.requestSeconds.labels(route, m, String(status));
      this.requestChildren.set(key, child);
    }
    child.observe(seconds);
  }

  rateLimitRefused(bucket: string): void {
    this.refusals.inc({ bucket });
  }

  indexerSynced(result: { chain: string; head?: number; to: number; led: boolean }): void {
    if (!result.led || result.head === undefined) return;
    this.indexerHead.set({ chain: result.chain }, result.head);
    this.indexerIndexed.set({ chain: result.chain }, result.to);
    this.indexerLag.set({ chain: result.chain }, Math.max(0, result.head - result.to));
  }

  cacheLookup(hit: boolean): void {
    this.cacheLookups.inc({ result: hit ? 'hit' : 'miss' });
  }

  /** A `fetchFn` for viem's http transport that counts requests and failures of `chain`. */
  rpcFetch(chain: string, client: 'gateway' | 'indexer', inner: FetchFn = fetch): FetchFn {
    const labels = { chain, client };
    return async (input, init) => {
      this.rpcCalls.inc(labels);
      try {
        const response = await inner(input, init);
        if (!response.ok) this.rpcErrors.inc(labels);
        return response;
      } catch (error) {
        this.rpcErrors.inc(labels);
        throw error;
      }
    };
  }

  /** Connection pool gauges, read when scraped. */
  trackPool(db: Db, pool = 'gateway'): void {
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['pool'] as const,
        registers: [this.registry],
        collect() {
          this.set({ pool }, read());
        },
      });
    gauge(
      'gateway_db_pool_connections',
      'Connections the store pool holds (idle and in use)',
      () => db.totalCount,
    );
    gauge('gateway_db_pool_idle_connections', 'Idle connections of the store pool', () => db.idleCount);
    gauge(
      'gateway_db_pool_waiting_requests',
      'Queries waiting for a connection of the store pool',
      () => db.waitingCount,
    );
  }
}

/** What the access log and the histogram read of a finished request (set by the middleware chain). */
export interface RequestLocals {
  requestId?: string;
  bucket?: string;
  route?: string;
}

/**
 * Measures every request at the one place all of them pass (rest/app.ts's listener): one `finish`
 * listener per request records the latency histogram and writes the access-log line. The route label
 * is the pattern the chain recorded in `res.locals.route` (or express's matched route), else
 * `unmatched`. The log line holds method, route, status, duration, request id and bucket only: never
 * headers, keys, query strings or bodies.
 */
export function requestObserver(
  metrics: Metrics | undefined,
  logger: Logger | undefined,
): ((req: IncomingMessage, res: ServerResponse) => void) | undefined {
  if (!metrics && !logger) return undefined;
  return (req, res) => {
    const started = performance.now();
    res.once('finish', () => {
      const seconds = (performance.now() - started) / 1000;
      const locals = ((res as ServerResponse & { locals?: RequestLocals }).locals ?? {}) as RequestLocals;
      const route = locals.route ?? expressRoute(req) ?? UNMATCHED_ROUTE;
      const method = req.method ?? 'GET';
      metrics?.observeRequest(route, method, res.statusCode, seconds);
      logger?.info(
        {
          method,
          route,
          status: res.statusCode,
          durationMs: Math.round(seconds * 1e6) / 1e3,
          requestId: locals.requestId,
          bucket: locals.bucket,
        },
        'request',
      );
    });
  };
}

/** The pattern of the express route that answered (`req.route`), with the mount path before it. */
function expressRoute(req: IncomingMessage): string | undefined {
  const r = req as IncomingMessage & { route?: { path?: unknown }; baseUrl?: string };
  const path = r.route?.path;
  if (typeof path === 'string') return `${r.baseUrl ?? ''}${path}`;
  return undefined;
}
