import type { Services } from '../lib/services.js';

/**
 * DataLoaders, created per request so that nothing is cached across requests. Each domain adds its
 * loaders here.
 */
// biome-ignore lint/complexity/noBannedTypes: domains add their loaders to this record as they land.
export type Loaders = {};

export function createLoaders(_services: Services): Loaders {
  return {};
}
