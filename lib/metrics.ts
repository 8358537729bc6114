import type { IncomingMessage, ServerResponse } from 'node:http';
import type pg from 'pg';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { accessLogWriter } from './accessLog.js';
import type { Logger } from './logger.js';
import { rpcHostOf } from './rpcHost.js';

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
  private readonly backfillRatio = new Gauge({
    name: 'gateway_indexer_backfill_ratio',
    help: 'Share of the chain indexed, from its start block to the confirmed head the indexer aims at (1: caught up)',
    labelNames: ['chain'] as const,
    registers: [this.registry],
  });
  private readonly backfillBlocksRate = new Gauge({
    name: 'gateway_indexer_backfill_blocks_per_second',
    help: 'Blocks indexed per second by the running sync (0 when caught up)',
    labelNames: ['chain'] as const,
    registers: [this.registry],
  });
  private readonly backfillLogsRate = new Gauge({
    name: 'gateway_indexer_backfill_logs_per_second',
    help: 'Logs indexed per second by the running sync (0 when caught up)',
    labelNames: ['chain'] as const,
    registers: [this.registry],
  });
  private readonly logRangeBlocks = new Gauge({
    name: 'gateway_indexer_log_range_blocks',
    help: 'Blocks one eth_getLogs asks for now: narrower after a provider refused a range, wider again after answers',
    labelNames: ['chain'] as const,
    registers: [this.registry],
  });
  private readonly reorgs = new Counter({
    name: 'gateway_indexer_reorgs_total',
    help: 'Reorgs that orphaned indexed blocks, rewound to the fork point',
    labelNames: ['chain'] as const,
    registers: [this.registry],
  });
  private readonly rewoundBlocks = new Counter({
    name: 'gateway_indexer_rewound_blocks_total',
    help: 'Indexed blocks orphaned by reorgs and rewound',
    labelNames: ['chain'] as const,
    registers: [this.registry],
  });
  private readonly replaced = new Counter({
    name: 'gateway_indexer_chain_replaced_total',
    help: 'Times a chain no longer held any stored block (another genesis, or a fork below the kept hashes): its catalogue was rewound to genesis and indexed anew',
    labelNames: ['chain'] as const,
    registers: [this.registry],
  });
  private readonly rpcCalls = new Counter({
    name: 'gateway_rpc_requests_total',
    help: 'HTTP requests to chain RPC nodes (a JSON-RPC batch is one), by chain, client (gateway or indexer) and endpoint host',
    labelNames: ['chain', 'client', 'host'] as const,
    registers: [this.registry],
  });
  private readonly rpcErrors = new Counter({
    name: 'gateway_rpc_errors_total',
    help: 'RPC requests that failed: no connection, timeout or a non-2xx HTTP status, by chain, client and endpoint host',
    labelNames: ['chain', 'client', 'host'] as const,
    registers: [this.registry],
  });
  private readonly rpcBackoffs = new Counter({
    name: 'gateway_rpc_endpoint_backoffs_total',
    help: 'Times an RPC endpoint was backed off, by chain, endpoint host and reason (rate_limited, timeout, unavailable, malformed, wrong_chain)',
    labelNames: ['chain', 'host', 'reason'] as const,
    registers: [this.registry],
  });
  private readonly rpcUp = new Gauge({
    name: 'gateway_rpc_endpoint_up',
    help: 'Whether an RPC endpoint is in use (1) or backed off (0) after its last request, by chain and endpoint host',
    labelNames: ['chain', 'host'] as const,
    registers: [this.registry],
  });
  private readonly cacheLookups = new Counter({
    name: 'gateway_response_cache_lookups_total',
    help: 'Response cache lookups of the cached reads (stats, badge, chains, strategy detail), by result (hit or miss)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  private readonly webhookDeliveries = new Counter({
    name: 'gateway_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: delivered (2xx), retry (failed, another attempt queued), exhausted (failed, the last of the schedule: the endpoint is disabled), deferred (put off without being made: the endpoint is failing)',
    labelNames: ['outcome'] as const,
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

  /** Where a running sync is, after each chunk it stored (and once more when it ends). */
  indexerProgress(progress: {
    chain: string;
    head: number;
    indexed: number;
    ratio: number;
    blocksPerSecond: number;
    logsPerSecond: number;
  }): void {
    const chain = { chain: progress.chain };
    this.indexerHead.set(chain, progress.head);
    this.indexerIndexed.set(chain, progress.indexed);
    this.indexerLag.set(chain, Math.max(0, progress.head - progress.indexed));
    this.backfillRatio.set(chain, progress.ratio);
    this.backfillBlocksRate.set(chain, progress.blocksPerSecond);
    this.backfillLogsRate.set(chain, progress.logsPerSecond);
  }

  indexerLogRange(chain: string, blocks: number): void {
    this.logRangeBlocks.set({ chain }, blocks);
  }

  indexerRewound(chain: string, blocks: number): void {
    this.reorgs.inc({ chain });
    this.rewoundBlocks.inc({ chain }, blocks);
  }

  indexerChainReplaced(chain: string): void {
    this.replaced.inc({ chain });
  }

  webhookDelivery(outcome: 'delivered' | 'retry' | 'exhausted' | 'deferred'): void {
    this.webhookDeliveries.inc({ outcome });
  }

  cacheLookup(hit: boolean): void {
    this.cacheLookups.inc({ result: hit ? 'hit' : 'miss' });
  }

  /**
   * A `fetchFn` for viem's http transport that counts requests and failures of `chain` per endpoint
   * host (host and port only: a URL's path and query may hold an API key).
   */
  rpcFetch(chain: string, client: 'gateway' | 'indexer', inner: FetchFn = fetch): FetchFn {
    const byUrl = new Map<string, { chain: string; client: string; host: string }>();
    const labelsOf = (input: string | URL | Request) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      let labels = byUrl.get(url);
      if (!labels) {
        labels = { chain, client, host: rpcHostOf(url) };
        if (byUrl.size < 64) byUrl.set(url, labels);
      }
      return labels;
    };
    return async (input, init) => {
      const labels = labelsOf(input);
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

  rpcEndpointBackoff(chain: string, host: string, reason: string): void {
    this.rpcBackoffs.inc({ chain, host, reason });
  }

  rpcEndpointUp(chain: string, host: string, up: boolean): void {
    this.rpcUp.set({ chain, host }, up ? 1 : 0);
  }

  /** Open GET /api/events streams of this process, read when scraped. */
  trackEventStreams(read: () => number): void {
    new Gauge({
      name: 'gateway_event_streams_open',
      help: 'Server-Sent Events streams (GET /api/events) open on this process',
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  /**
   * Each chain's indexing as the store records it (store/indexerHealth.ts), read when scraped: every
   * process shows it, not only the chain's writer. A failed read leaves the gauges as they were.
   */
  trackChainIndexing(
    read: () => Promise<Array<{ chain: string; degraded: string | null; sinceSyncSeconds: number | null }>>,
  ): void {
    let last: Promise<Awaited<ReturnType<typeof read>>> | null = null;
    // One store read per scrape for both gauges.
    const rows = () => {
      last ??= read().finally(() => setImmediate(() => (last = null)));
      return last;
    };
    type Row = Awaited<ReturnType<typeof read>>[number];
    const gauge = (name: string, help: string, value: (row: Row) => number | null) =>
      new Gauge({
        name,
        help,
        labelNames: ['chain'] as const,
        registers: [this.registry],
        async collect() {
          for (const row of await rows().catch(() => [])) {
            const v = value(row);
            if (v !== null) this.set({ chain: row.chain }, v);
          }
        },
      });
    gauge(
      'gateway_indexer_chain_degraded',
      'Whether /readyz names the chain degraded: 1 when its indexer made no progress for INDEXER_STALL_SECONDS, is re-syncing from far behind or has not indexed it yet',
      (row) => (row.degraded ? 1 : 0),
    );
    gauge(
      'gateway_indexer_since_sync_seconds',
      "Seconds since the chain's last completed indexer sync",
      (row) => row.sinceSyncSeconds,
    );
  }

  /** Connection pool gauges, read when scraped. */
  trackPool(db: pg.Pool, pool = 'gateway'): void {
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
 * headers, keys, query strings or bodies (lib/accessLog.ts writes it).
 */
export function requestObserver(
  metrics: Metrics | undefined,
  logger: Logger | undefined,
): ((req: IncomingMessage, res: ServerResponse) => void) | undefined {
  if (!metrics && !logger) return undefined;
  const access = logger && accessLogWriter(logger);
  return (req, res) => {
    const started = performance.now();
    res.once('finish', () => {
      const seconds = (performance.now() - started) / 1000;
      const locals = ((res as ServerResponse & { locals?: RequestLocals }).locals ?? {}) as RequestLocals;
      const route = locals.route ?? expressRoute(req) ?? UNMATCHED_ROUTE;
      const method = req.method ?? 'GET';
      metrics?.observeRequest(route, method, res.statusCode, seconds);
      access?.({
        method,
        route,
        status: res.statusCode,
        durationMs: Math.round(seconds * 1e6) / 1e3,
        requestId: locals.requestId,
        bucket: locals.bucket,
      });
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
