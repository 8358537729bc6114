import type { Services } from '../lib/services.js';
import type { Loaders } from '../loaders/index.js';

/**
 * What the domain's chain and store reads need: the services and a set of DataLoaders (their batching
 * window is the caller's). A GraphQL request's context is one; the indexer's health check makes its own.
 */
export interface ReadContext {
  services: Services;
  loaders: Loaders;
}
