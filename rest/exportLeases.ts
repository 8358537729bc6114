/**
 * A key's running exports across the replicas: one Redis sorted set per key, a member per export, its
 * score the lease's end on Redis's own clock (no skew between replicas). A lease is renewed while its
 * export runs and removed when it ends; a replica that dies leaves its leases to expire (LEASE_MS).
 * Without Redis, or while it fails, the count of this replica stands in (lib/redisBreaker.ts bounds
 * each call).
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/** How long a lease lasts unless renewed; renewed every third of it. */
const LEASE_MS = 60_000;

/** Drops the expired leases, then takes (if fewer than the limit) or renews (if still held) one. */
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if ARGV[1] == 'take' then
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[4])
else
  if not redis.call('ZSCORE', KEYS[1], ARGV[4]) then return 0 end
  redis.call('ZADD', KEYS[1], 'XX', now + ttl, ARGV[4])
end
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
`;

export interface Lease {
  release(): void;
}

/**
 * A lease of one of `limit` exports of `keyId` across the replicas: the lease, null when the key holds
 * `limit` already, or undefined when Redis could not answer (the caller counts on its own).
 */
export async function takeExportLease(
  redis: Redis,
  prefix: string,
  keyId: string,
  limit: number,
): Promise<Lease | null | undefined> {
  const key = `${prefix}exports:${keyId}`;
  const member = randomUUID();
  let granted: unknown;
  try {
    granted = await redis.eval(SCRIPT, 1, key, 'take', LEASE_MS, limit, member);
  } catch {
    return undefined;
  }
  if (granted !== 1) return null;
  const renew = setInterval(() => {
    redis.eval(SCRIPT, 1, key, 'renew', LEASE_MS, limit, member).catch(() => {});
  }, LEASE_MS / 3);
  renew.unref();
  return {
    release() {
      clearInterval(renew);
      redis.zrem(key, member).catch(() => {});
    },
  };
}
