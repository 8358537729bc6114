import type { Redis } from 'ioredis';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { type Bucket, WINDOW_SECONDS } from './buckets.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (at least 1). */
  resetSeconds: number;
}

/**
 * Fixed-window counters, one per (bucket, subject). With Redis the increment and the expiry are one
 * Lua script, so replicas share a window exactly; if Redis cannot answer — an error, no answer within
 * REDIS_COMMAND_TIMEOUT_MS, or its breaker open (lib/redisBreaker.ts) — each process falls back to its
 * own in-memory counters (the insurance limiter) instead of failing or waiting.
 */
export class RateLimits {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  constructor(
    private readonly redis?: Redis,
    private readonly prefix = '',
  ) {}

  private limiter(bucket: Bucket, limit: number): RateLimiterAbstract {
    const id = `${bucket}:${limit}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const options = { keyPrefix: `${this.prefix}rl:${bucket}`, points: limit, duration: WINDOW_SECONDS };
      const memory = new RateLimiterMemory(options);
      limiter = this.redis
        ? new RateLimiterRedis({
            ...options,
            storeClient: this.redis,
            rejectIfRedisNotReady: true,
            insuranceLimiter: memory,
          })
        : memory;
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  /**
   * Whether the subject's window is already used up, without counting a request: lets a caller skip
   * work (a key look-up) for a request its bucket will refuse. A store that cannot answer says no.
   */
  async exhausted(bucket: Bucket, subject: string, limit: number): Promise<boolean> {
    try {
      const res = await this.limiter(bucket, limit).get(subject);
      return res !== null && res.consumedPoints >= limit;
    } catch {
      return false;
    }
  }

  async take(bucket: Bucket, subject: string, limit: number): Promise<RateDecision> {
    let res: RateLimiterRes;
    let allowed = true;
    try {
      res = await this.limiter(bucket, limit).consume(subject, 1);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      res = rejection;
      allowed = false;
    }
    return {
      allowed,
      limit,
      remaining: Math.max(0, res.remainingPoints),
      resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    };
  }
}
