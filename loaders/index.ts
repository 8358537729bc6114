import type DataLoader from 'dataloader';
import type { Services } from '../lib/services.js';
import { type CatalogueLoaders, createCatalogueLoaders } from './catalogue.js';
import { type ContractRead, createMulticallLoader } from './multicall.js';
import { createSeriesLoaders, type SeriesLoaders } from './series.js';

/**
 * DataLoaders, created per request so that nothing is cached across requests. Each domain adds its
 * loaders here.
 */
export type Loaders = {
  /** View calls batched into one Multicall3 round trip per chain (loaders/multicall.ts). */
  multicall: DataLoader<ContractRead, unknown, string>;
} & CatalogueLoaders &
  SeriesLoaders;

export function createLoaders(services: Services): Loaders {
  return {
    multicall: createMulticallLoader(services),
    ...createCatalogueLoaders(services),
    ...createSeriesLoaders(services),
  };
}
