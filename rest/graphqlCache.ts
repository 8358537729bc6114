import type { Cache } from '@graphql-yoga/plugin-response-cache';
import type { Redis } from 'ioredis';

/** Where the /graphql response cache keeps its entries, under the service's REDIS_PREFIX. */
export function graphqlCacheKeyPrefix(redisPrefix: string): string {
  return `${redisPrefix}gql:`;
}

/**
 * The /graphql response cache on Redis, shared by the replicas. @envelop/response-cache-redis wrote
 * its keys without REDIS_PREFIX (the response id as it is, and one index set per type name such as
 * `Stats` that never expires, and it ran KEYS over the whole Redis to invalidate after a mutation).
 * Entries here expire with their TTL and nothing else is written: the cached types are the roll-up's,
 * which change by time, never through a mutation, so there is nothing to invalidate. A Redis failure
 * is a cache miss, never a failed query.
 */
export function createPrefixedRedisCache(redis: Redis, redisPrefix: string): Cache {
  const prefix = graphqlCacheKeyPrefix(redisPrefix);
  return {
    async set(id, data, _entities, ttl) {
      // Only bounded entries: an infinite TTL would outlive every deployment sharing this Redis.
      if (!Number.isFinite(ttl) || ttl <= 0) return;
      await redis.set(prefix + id, JSON.stringify(data), 'PX', Math.ceil(ttl)).catch(() => undefined);
    },
    async get(id) {
      const text = await redis.get(prefix + id).catch(() => null);
      return text ? (JSON.parse(text) as Awaited<ReturnType<Cache['get']>>) : undefined;
    },
    invalidate() {},
  };
}
