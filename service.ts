import { createServer, type Server } from 'node:http';
import type { Redis } from 'ioredis';
import { createChainClients, rpcClientOptions } from './chain/clients.js';
import { feedErrorLog } from './chain/parts.js';
import { createPriceBook } from './chain/prices.js';
import { ChainRegistry, loadChains } from './chain/registry.js';
import { migrateQueue, startWebhookWorker } from './delivery/worker.js';
import type { Devnet } from './devnet/devnet.js';
import { spawnDevnet } from './devnet/process.js';
import { startIndexer } from './indexer/index.js';
import { type ChainConfig, type Config, withListenPort } from './lib/config.js';
import { createLogger, type Logger } from './lib/logger.js';
import { Metrics } from './lib/metrics.js';
import { GuardedRedis } from './lib/redisBreaker.js';
import type { Services } from './lib/services.js';
import { type PartStatus, partsDown, type Supervised, supervise } from './lib/supervisor.js';
import { mountMcp } from './mcp/index.js';
import { createApp } from './rest/app.js';
import { lazyOpenApi, mountDocs } from './rest/docs.js';
import { drainable } from './rest/drain.js';
import { CatalogueEventHub } from './rest/eventHub.js';
import { ExportSlots } from './rest/exportSlots.js';
import { readGuides } from './rest/guides.js';
import { answerHttpFaults } from './rest/httpFaults.js';
import { mountLlms } from './rest/llms.js';
import { RateLimits } from './rest/rateLimit.js';
import { responseCacheFor } from './rest/responseCache.js';
import type { RestRoute } from './rest/route.js';
import { routes } from './rest/routes/index.js';
import { schema } from './schema/index.js';
import { startApiKeyCache } from './store/apiKeyCache.js';
import { createAnalyticsDb, createDb, createExportDb } from './store/db.js';
import { type EmbeddedDatabase, startEmbeddedPostgres } from './store/embedded.js';
import { chainIndexing } from './store/indexerHealth.js';
import { migrate } from './store/migrate.js';
import { readRollup } from './store/rollups.js';
import { startMakerStrategiesCache } from './store/walletStrategies.js';
import { mountWeb } from './web/mount.js';

export interface ServiceOptions {
  /** Chains to use instead of CHAINS_FILE or a devnet of the service's own (tests share one devnet). */
  chains?: ChainConfig[];
  logger?: Logger;
  /** Routes mounted beside the documented ones (the conventions bench, tests of the middleware). */
  extraRoutes?: RestRoute[];
}

export interface RunningService {
  url: string;
  server: Server;
  services: Services;
  /**
   * Stops everything it started. With `graceMs`, /readyz answers 503 and the listener keeps serving
   * that long first (a load balancer's time to stop sending here); `endGrace()` cuts that short.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
  endGrace(): void;
}

/**
 * The composition root: store (configured or embedded), Redis (optional), chains (configured or a
 * devnet program of its own), then the HTTP app. Everything it starts, `stop()` stops: the HTTP server
 * first (drained: a stopping replica takes no new connection, and the requests in flight still find the
 * store and the chains), then the rest in reverse order of start.
 */
export async function startService(config: Config, options: ServiceOptions = {}): Promise<RunningService> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const stops: Array<() => Promise<unknown>> = [];
  let stopHttp: ((graceMs: number) => Promise<void>) | undefined;
  let endGrace = () => {};
  const stopAll = async (options: { graceMs?: number } = {}) => {
    await stopHttp?.(options.graceMs ?? 0).catch((err: unknown) => logger.warn({ err }, 'stop failed'));
    for (const stop of stops.reverse())
      await stop().catch((err: unknown) => logger.warn({ err }, 'stop failed'));
  };
  // What the service started itself (embedded Postgres, devnet): /readyz names a part that is down.
  const parts: Array<() => PartStatus[]> = [];
  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      // Restarted on its data directory and port when it dies: the pool's next connections find it
      // again, and meanwhile the store's callers answer 503 (store/db.ts).
      const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, logger });
      const postgres: Supervised<EmbeddedDatabase> = await supervise({
        name: 'embedded postgres',
        logger,
        initial: embedded,
        start: async () => {
          await embedded.restart();
          return embedded;
        },
        exited: (server) => server.exited(),
        stop: (server) => server.stop(),
      });
      stops.push(() => postgres.stop());
      parts.push(() => [postgres.status()]);
      databaseUrl = embedded.url;
    }
    const pools = { idleTimeoutMs: config.databaseIdleMs, connectTimeoutMs: config.databaseConnectTimeoutMs };
    const db = createDb(databaseUrl, config.databasePoolMax, pools);
    stops.push(() => db.end());
    const metrics = new Metrics();
    metrics.trackPool(db);
    await migrate(db);
    // GET /api/events: one LISTEN connection of this process, fanned out to its streams.
    const events = new CatalogueEventHub(
      db,
      databaseUrl,
      logger.child({ component: 'events' }),
      config.events,
    );
    events.start();
    stops.push(() => events.stop());
    metrics.trackEventStreams(() => events.size);
    // The keys this process authenticated with, forgotten on every change's notice (one more LISTEN).
    const apiKeys = startApiKeyCache(db, databaseUrl, logger.child({ component: 'api-keys' }));
    stops.push(() => apiKeys.stop());
    // The makers' open strategies a prepare reads, forgotten on every ship, dock or rewind (one more LISTEN).
    const makerStrategies = startMakerStrategiesCache(
      db,
      databaseUrl,
      logger.child({ component: 'maker-strategies' }),
    );
    stops.push(() => makerStrategies.stop());
    const analyticsDb = createAnalyticsDb(databaseUrl, config.analyticsStatementTimeoutMs, pools);
    stops.push(() => analyticsDb.end());
    const exportDb = createExportDb(databaseUrl, pools);
    stops.push(() => exportDb.end());

    let redis: Redis | undefined;
    if (config.redisUrl) {
      // Fail fast instead of queueing while Redis is away, and bound every command while it hangs: callers
      // fall back to memory (rate limits, caches); the breaker then stops asking it for a while.
      // No auto-pipelining: the hot path's one command per event-loop turn is batched already (the rate
      // limits' script call, rest/windowCounter.ts), and ioredis runs one auto-pipeline at a time, queueing
      // the next turns' commands behind the one in flight: requests waited a round trip longer and lived
      // across scavenges and were promoted to the old generation, and a gateway served a third fewer cached
      // reads.
      redis = new GuardedRedis(config.redisUrl, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        enableAutoPipelining: false,
        commandTimeoutMs: config.redisCommandTimeoutMs,
        logger,
      });
      redis.on('error', (err) => logger.debug({ err: err.message }, 'redis error'));
      const client = redis;
      stops.push(async () => client.disconnect());
    }

    let registry: ChainRegistry;
    if (options.chains) {
      registry = new ChainRegistry(options.chains);
    } else if (config.chainsFile) {
      registry = loadChains(config);
    } else {
      const devnet: Devnet = await spawnDevnet({
        basePort: config.devnetPort,
        dataDir: config.dataDir,
        activityMs: config.devnetActivityMs,
        logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel,
        logger,
      });
      stops.push(() => devnet.stop());
      parts.push(() => devnet.parts?.() ?? []);
      registry = loadChains(config, devnet.chains);
    }
    const clients = createChainClients(registry, rpcClientOptions(config, { metrics, logger }));
    const prices = createPriceBook(registry, clients, config, feedErrorLog(logger));
    // The feeds read once before the first request, so no request waits for them.
    await prices.refresh();
    const unpriced = prices.unpriced(registry);
    if (unpriced.length > 0)
      logger.warn(
        { symbols: unpriced },
        'tokens without a USD price (usd or usdFeed in the chains file): they count 0 USD',
      );
    // A URL of another chain or one that is down is reported now, not at the first request.
    await clients.verify();
    // Listen first: with PORT=0 the URLs derived from the port are known only then.
    // Node checks headersTimeout/requestTimeout only every connectionsCheckingInterval (30 s by
    // default): a slow client would hold its socket up to 30 s past REQUEST_TIMEOUT_MS. Check often.
    // requireHostHeader: a request without Host is refused by rest/app.ts, with the envelope.
    const server = createServer({
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(config.requestTimeoutMs / 4))),
      requireHostHeader: false,
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
    const http = drainable(server);
    endGrace = () => http.endGrace();
    // Open event streams never end by themselves: ended first, so the drain waits only for real requests.
    stopHttp = (graceMs) => {
      events.closeStreams();
      return http.drain(config.requestTimeoutMs, graceMs);
    };
    const address = server.address();
    const listenConfig = withListenPort(
      config,
      typeof address === 'object' && address ? address.port : config.port,
    );
    const services: Services = {
      config: listenConfig,
      logger,
      db,
      analyticsDb,
      exportDb,
      exports: new ExportSlots(
        config.exports.concurrency,
        config.exports.perKey,
        config.exports.loopShare,
        redis ? { redis, prefix: config.redisPrefix } : undefined,
      ),
      redis,
      registry,
      clients,
      prices,
      metrics,
      apiKeys: apiKeys.cache,
      makerStrategies: makerStrategies.cache,
      events,
    };
    // Each chain's indexing as the store records it, whichever process writes it: /readyz and /metrics.
    const readChainIndexing = () =>
      chainIndexing(
        db,
        registry
          .list()
          .map((c) => ({ key: c.key, confirmations: c.confirmations ?? config.indexerConfirmations })),
        { stallSeconds: config.indexerStallSeconds, behindBlocks: config.indexerChunkBlocks },
      );
    metrics.trackChainIndexing(readChainIndexing);
    // A rewound chain: the details and live reads this process cached may name strategies now gone.
    events.onRewound = () => {
      for (const space of ['reads', 'detail']) responseCacheFor(services, space).clearLocal();
    };
    const limits = new RateLimits(redis, config.redisPrefix);
    const app = createApp({
      services,
      schema,
      limits,
      routes: [...routes, ...(options.extraRoutes ?? [])],
      // Ready once the first roll-up exists (written by this process's indexer or another one).
      readiness: [
        async () => (http.draining ? 'draining (this replica is stopping)' : null),
        async () => partsDown(parts.flatMap((list) => list())),
        async () => ((await readRollup(db)) ? null : 'first roll-up not written yet'),
      ],
      degraded: [
        async () =>
          Object.fromEntries(
            (await readChainIndexing())
              .filter((c) => c.degraded !== null)
              .map((c) => [`chain:${c.chain}`, c.degraded!]),
          ),
      ],
      mount: (app, hooks) => {
        mountWeb(app, { publicUrl: listenConfig.publicUrl });
        const guides = readGuides();
        const docs = { routes, publicUrl: listenConfig.publicUrl, docsUrl: listenConfig.docsUrl, guides };
        const document = lazyOpenApi(docs);
        mountDocs(app, { ...docs, document });
        mountLlms(app, docs);
        mountMcp(app, hooks, {
          ...docs,
          document,
          trustProxy: config.trustProxy,
          bodyLimitBytes: config.bodyLimitBytes,
        });
      },
    });
    server.on('request', app);
    // Requests node refuses before express (unparseable, oversized head, too slow, CONNECT): envelopes too.
    answerHttpFaults(server, () => listenConfig.docsUrl, limits);
    // Slow clients cannot hold a socket: bounded headers, request and idle keep-alive times.
    server.requestTimeout = config.requestTimeoutMs;
    server.headersTimeout = Math.min(config.requestTimeoutMs, 10_000);
    server.keepAliveTimeout = config.keepAliveTimeoutMs;
    // The webhook queue's schema before the indexer can queue an event; then the delivery worker.
    // The queue has a pool of its own: graphile-worker hooks every client of its pool (delivery/worker.ts).
    const queuePool = createDb(databaseUrl, config.webhooks.concurrency + 2, pools);
    stops.push(() => queuePool.end());
    await migrateQueue(services, queuePool);
    const webhooks = await startWebhookWorker(services, queuePool);
    stops.push(() => webhooks.stop());
    if (config.indexer === 'embedded') {
      // Awaits the first sync and roll-up: once started, the catalogue holds the chains' history.
      const indexer = await startIndexer(services);
      stops.push(() => indexer.stop());
    }
    const url = `http://${config.host}:${listenConfig.port}`;
    return { url, server, services, stop: stopAll, endGrace: () => endGrace() };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
