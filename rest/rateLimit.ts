import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { type Bucket, WINDOW_SECONDS } from '../lib/buckets.js';
import { type WindowCount, WindowCounter } from './windowCounter.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (at least 1). */
  resetSeconds: number;
}

/**
 * Fixed-window counters, one per (bucket, subject). With Redis every count is an atomic increment and
 * expiry in Redis (rest/windowCounter.ts, in batches per event-loop turn), so replicas share a window
 * exactly; if Redis cannot answer — not connected, an error, no answer within REDIS_COMMAND_TIMEOUT_MS,
 * or its breaker open (lib/redisBreaker.ts) — each process falls back to its own in-memory counters
 * instead of failing or waiting.
 */
export class RateLimits {
  /**
   * Per (bucket, limit): the in-memory counters (rate-limiter-flexible's), the store without Redis and
   * the fallback with it.
   */
  private readonly memory = new Map<string, RateLimiterMemory>();
  private readonly counter: WindowCounter | undefined;

  constructor(
    private readonly redis?: Redis,
    private readonly prefix = '',
  ) {
    this.counter = redis && new WindowCounter(redis, WINDOW_SECONDS);
  }

  /** The key of a window in Redis: rate-limiter-flexible's `<keyPrefix>:<subject>`. */
  private keyPrefix(bucket: Bucket): string {
    return `${this.prefix}rl:${bucket}`;
  }

  private memoryLimiter(bucket: Bucket, limit: number): RateLimiterMemory {
    const id = `${bucket}:${limit}`;
    let limiter = this.memory.get(id);
    if (!limiter) {
      limiter = new RateLimiterMemory({
        keyPrefix: this.keyPrefix(bucket),
        points: limit,
        duration: WINDOW_SECONDS,
      });
      this.memory.set(id, limiter);
    }
    return limiter;
  }

  /**
   * Whether the subject's window is already used up, without counting a request: lets a caller skip
   * work (a key look-up) for a request its bucket will refuse. A store that cannot answer says no.
   */
  async exhausted(bucket: Bucket, subject: string, limit: number): Promise<boolean> {
    const window = await this.fromRedis('read', bucket, subject);
    if (window) return window.count >= limit;
    try {
      const res = await this.memoryLimiter(bucket, limit).get(subject);
      return res !== null && res.consumedPoints >= limit;
    } catch {
      return false;
    }
  }

  async take(bucket: Bucket, subject: string, limit: number): Promise<RateDecision> {
    const window = await this.fromRedis('increment', bucket, subject);
    if (window) return decision(window.count <= limit, limit, limit - window.count, window.msLeft);
    return this.takeFromMemory(bucket, subject, limit);
  }

  /** The subject's window in Redis (counted or read), or undefined when Redis is not there to answer. */
  private async fromRedis(
    op: 'increment' | 'read',
    bucket: Bucket,
    subject: string,
  ): Promise<WindowCount | undefined> {
    if (!this.counter || this.redis?.status !== 'ready') return undefined;
    try {
      return await this.counter[op](`${this.keyPrefix(bucket)}:${subject}`);
    } catch {
      // Redis did not answer: the caller uses this process's own counters.
      return undefined;
    }
  }

  private async takeFromMemory(bucket: Bucket, subject: string, limit: number): Promise<RateDecision> {
    let res: RateLimiterRes;
    let allowed = true;
    try {
      res = await this.memoryLimiter(bucket, limit).consume(subject, 1);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      res = rejection;
      allowed = false;
    }
    return decision(allowed, limit, res.remainingPoints, res.msBeforeNext);
  }
}

function decision(allowed: boolean, limit: number, remaining: number, msLeft: number): RateDecision {
  return {
    allowed,
    limit,
    remaining: Math.max(0, remaining),
    resetSeconds: Math.max(1, Math.ceil(msLeft / 1000)),
  };
}
