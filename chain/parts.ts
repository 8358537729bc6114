/**
 * What a process needs of its chains, built together: the registry, a client per chain and the price
 * book that reads its feeds through them. Tools, benches and tests build their services from it.
 */

import type { Logger } from '../lib/logger.js';
import { type ChainClients, createChainClients, type RpcClientOptions } from './clients.js';
import { createPriceBook, type PriceBook } from './prices.js';
import type { ChainRegistry } from './registry.js';

export interface ChainParts {
  registry: ChainRegistry;
  clients: ChainClients;
  prices: PriceBook;
}

export function chainParts(
  registry: ChainRegistry,
  rpc: RpcClientOptions,
  prices: { priceOverridesUsd: Readonly<Record<string, number>>; priceRefreshMs: number },
  logger?: Logger,
): ChainParts {
  const clients = createChainClients(registry, rpc);
  return {
    registry,
    clients,
    prices: createPriceBook(registry, clients, prices, logger && feedErrorLog(logger)),
  };
}

/** A failed read of a chain's price feeds, logged (the last answers stay in use). */
export function feedErrorLog(logger: Logger) {
  return (chain: string, err: unknown) =>
    logger.warn(
      { chain, err: err instanceof Error ? err.message.split('\n')[0] : String(err) },
      'price feeds unread; keeping their last answers',
    );
}
