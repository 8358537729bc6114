// The one exception to imports running down the layers: this bag is what service.ts builds and hands
// to every layer, so it names their types. Type-only imports: nothing here loads those modules.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Redis } from 'ioredis';
import type { ChainClients } from '../chain/clients.js';
import type { PriceBook } from '../chain/prices.js';
import type { ChainRegistry } from '../chain/registry.js';
import type { ApiKeyCache } from '../store/apiKeyCache.js';
import type { Db } from '../store/db.js';
import type { MakerStrategiesCache } from '../store/walletStrategies.js';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';

/** The live stream of GET /api/events as the facade opens one (rest/eventHub.ts builds it). */
export interface EventStreams {
  open(req: IncomingMessage, res: ServerResponse, client: string, lastEventId: number | null): Promise<void>;
}

/** The exports this process streams at once, as the facade takes them (rest/exportSlots.ts builds it). */
export interface ExportAllowance {
  /** How many run now. */
  readonly size: number;
  /** A slot for the key's export, or the refusal thrown; the slot is given back by the function. */
  take(keyId: string): Promise<() => void>;
  /** Runs one slice of an export's CPU work in its turn. */
  slice<T>(work: () => T): Promise<T>;
}

/** What the resolvers and the REST layer share for the life of the process. */
export interface Services {
  config: Config;
  logger: Logger;
  db: Db;
  /**
   * The pool of /graphql (internal analytics): small, with a statement timeout, so no document sent
   * there can take the connections of the public paths. Absent (tools, benches): /graphql uses `db`.
   */
  analyticsDb?: Db;
  /** The pool of the exports (store/db.ts createExportDb); absent (tools, benches): exports use `db`. */
  exportDb?: Db;
  /** The exports this process streams at once (rest/exportSlots.ts); absent: none is refused. */
  exports?: ExportAllowance;
  redis: Redis | undefined;
  registry: ChainRegistry;
  clients: ChainClients;
  /** The USD price of every listed token, from the chains file's sources (chain/prices.ts). */
  prices: PriceBook;
  /** Prometheus metrics of this instance (GET /metrics); absent where nothing serves them. */
  metrics?: Metrics;
  /**
   * The api_keys rows this process authenticated with, kept until a change is announced
   * (store/apiKeyCache.ts); absent (tools, tests of other parts): every look-up reads the store.
   */
  apiKeys?: ApiKeyCache;
  /**
   * Makers' active strategies per chain, kept until a change is announced (store/walletStrategies.ts);
   * absent (tools, tests of other parts): every coverage read queries the store.
   */
  makerStrategies?: MakerStrategiesCache;
  /** The live stream of GET /api/events; absent where nothing serves it (tools, benches). */
  events?: EventStreams;
}
