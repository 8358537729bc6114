import DataLoader from 'dataloader';
import type { Services } from '../lib/services.js';
import { type BucketRow, type Granularity, strategyBuckets } from '../store/series.js';

/** One strategy's series over one range (`Strategy.activity`). */
export interface ActivityKey {
  granularity: Granularity;
  from: Date;
  to: Date;
  chain: string;
  hash: string;
}

export interface SeriesLoaders {
  /** A strategy's non-empty buckets: the strategies of one range (and granularity) are read in one statement. */
  activity: DataLoader<ActivityKey, BucketRow[], string>;
}

const rangeOf = (k: ActivityKey) => `${k.granularity}|${k.from.getTime()}|${k.to.getTime()}`;

export function createSeriesLoaders(services: Services): SeriesLoaders {
  return {
    activity: new DataLoader(
      async (keys) => {
        const ranges = new Map<string, ActivityKey[]>();
        for (const key of keys) {
          const group = ranges.get(rangeOf(key));
          if (group) group.push(key);
          else ranges.set(rangeOf(key), [key]);
        }
        const found = new Map<string, BucketRow[]>();
        await Promise.all(
          [...ranges.values()].map(async (group) => {
            const { granularity, from, to } = group[0]!;
            for (const row of await strategyBuckets(services.db, granularity, from, to, group)) {
              const id = `${rangeOf(group[0]!)}|${row.chain_key}|${row.strategy_hash}`;
              const rows = found.get(id);
              if (rows) rows.push(row);
              else found.set(id, [row]);
            }
          }),
        );
        return keys.map((k) => found.get(`${rangeOf(k)}|${k.chain}|${k.hash}`) ?? []);
      },
      { cacheKeyFn: (k) => `${rangeOf(k)}|${k.chain}|${k.hash}` },
    ),
  };
}
