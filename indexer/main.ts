/**
 * `npm run indexer`: the indexer as a process of its own (docker-compose runs one beside N gateway
 * replicas started with INDEXER=off). Needs DATABASE_URL and CHAINS_FILE; applies the migrations,
 * follows the chains and refreshes the roll-up until SIGTERM or SIGINT.
 */
import { rpcClientOptions } from '../chain/clients.js';
import { chainParts } from '../chain/parts.js';
import { loadChains } from '../chain/registry.js';
import { loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import type { Services } from '../lib/services.js';
import { createDb } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { type Indexer, startIndexer } from './index.js';

const config = loadConfig();
const logger = createLogger(config.logLevel, 'indexer');
if (!config.databaseUrl || !config.chainsFile) {
  logger.fatal('the indexer process needs DATABASE_URL and CHAINS_FILE');
  process.exit(1);
}

const db = createDb(config.databaseUrl, 4, {
  idleTimeoutMs: config.databaseIdleMs,
  connectTimeoutMs: config.databaseConnectTimeoutMs,
});
const registry = loadChains(config);
const services: Services = {
  config,
  logger,
  db,
  redis: undefined,
  ...chainParts(registry, rpcClientOptions(config, { logger }), config, logger),
};

// The first pass is not awaited: a long catch-up runs in the background and a signal stops it.
const starting: Promise<Indexer | undefined> = (async () => {
  await migrate(db);
  return startIndexer(services, { awaitFirstSync: false });
})().catch((error: unknown) => {
  logger.fatal({ err: error }, 'indexer failed to start');
  return undefined;
});

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'indexer stopping');
  let code = 0;
  try {
    // A signal during start waits for it: the running chunk commits and the locks are released.
    await (await starting)?.stop();
    await db.end();
  } catch (error) {
    logger.error({ err: error }, 'indexer stop failed');
    code = 1;
  }
  process.exit(code);
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));

const indexer = await starting;
if (!indexer) {
  await db.end().catch(() => {});
  process.exit(1);
}
if (!stopping) logger.info({ chains: registry.keys() }, 'indexer running');
