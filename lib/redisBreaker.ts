import { Command, Redis, type RedisOptions } from 'ioredis';
import type { Logger } from './logger.js';

/**
 * Redis that cannot hang the service. Every caller (rate limits, the stats response cache, the GraphQL
 * response cache) treats Redis as optional: on an error it falls back to its per-process memory. What
 * this module adds is that a *slow* Redis is an error too, and soon not even asked:
 *
 * - every command is bounded by REDIS_COMMAND_TIMEOUT_MS (tens of ms): past it the caller's promise is
 *   rejected and the caller uses its fallback;
 * - a circuit breaker counts consecutive failures (timeouts, connection errors; a Redis error reply is an
 *   answer, not a failure): after BREAKER.failures it opens, and for BREAKER.cooldownMs every command is
 *   refused at once, without touching the socket; then it half-opens and sends one PING as the probe,
 *   which closes it (answered within the timeout) or opens it again. A reconnection (ioredis `ready`)
 *   closes it too;
 * - `degraded` says whether callers are on their fallbacks now, for /readyz.
 */

export const BREAKER = {
  /** Consecutive failed commands that open the breaker. */
  failures: 3,
  /** How long an open breaker refuses every command before its probe. */
  cooldownMs: 2_000,
} as const;

export type BreakerState = 'closed' | 'open' | 'half-open';

/** The three states and their transitions, without I/O (the client below drives it). */
export class CircuitBreaker {
  private current: BreakerState = 'closed';
  private consecutive = 0;

  constructor(
    private readonly threshold: number,
    private readonly onChange: (state: BreakerState, reason: string) => void,
  ) {}

  get state(): BreakerState {
    return this.current;
  }

  /** Whether a command may be sent: only while closed (the half-open probe is the breaker's own). */
  get allows(): boolean {
    return this.current === 'closed';
  }

  succeeded(): void {
    this.consecutive = 0;
    if (this.current !== 'closed') this.move('closed', 'answered');
  }

  failed(reason: string): void {
    this.consecutive++;
    if (this.current === 'half-open' || (this.current === 'closed' && this.consecutive >= this.threshold))
      this.move('open', reason);
  }

  /** The cool-down is over: the next outcome (of the probe) decides. */
  halfOpen(): void {
    if (this.current === 'open') this.move('half-open', 'cool-down over');
  }

  private move(state: BreakerState, reason: string): void {
    this.current = state;
    this.onChange(state, reason);
  }
}

/** Why a command was not sent: the breaker is open. */
export class RedisBreakerOpenError extends Error {
  override name = 'RedisBreakerOpenError';
}

/** A Redis error reply (WRONGTYPE, NOSCRIPT…): Redis answered, so it is not a failure of the breaker. */
function isReply(error: unknown): boolean {
  return error instanceof Error && error.name === 'ReplyError';
}

export interface GuardedRedisOptions extends RedisOptions {
  /** Bound of every command, in ms (REDIS_COMMAND_TIMEOUT_MS). */
  commandTimeoutMs: number;
  logger: Logger;
}

/** An ioredis client whose every command is bounded and passes the breaker. */
export class GuardedRedis extends Redis {
  readonly breaker: CircuitBreaker;
  private readonly timeoutMs: number;
  private readonly logger: Logger;
  private probeTimer: NodeJS.Timeout | undefined;

  /** `target`: a redis:// URL, or the options of a client (its duplicate). */
  constructor(target: string | RedisOptions, { commandTimeoutMs, logger, ...options }: GuardedRedisOptions) {
    if (typeof target === 'string') super(target, options);
    else super({ ...target, ...options });
    this.timeoutMs = commandTimeoutMs;
    this.logger = logger;
    this.breaker = new CircuitBreaker(BREAKER.failures, (state, reason) => {
      if (state === 'open') {
        logger.warn({ reason }, 'redis breaker open: rate limits per process, caches in memory');
        this.scheduleProbe();
      } else if (state === 'closed') {
        logger.info('redis breaker closed: Redis answers again');
      }
    });
    // A new connection answered its handshake: Redis is back.
    this.on('ready', () => this.breaker.succeeded());
    this.on('end', () => clearTimeout(this.probeTimer));
  }

  /** A second connection (e.g. a `keyPrefix` one) bounded and guarded the same way, by its own breaker. */
  override duplicate(override?: Partial<RedisOptions>): GuardedRedis {
    return new GuardedRedis(
      { ...this.options, ...override },
      { commandTimeoutMs: this.timeoutMs, logger: this.logger },
    );
  }

  /** True while callers are on their in-memory fallbacks: not connected, or the breaker not closed. */
  get degraded(): boolean {
    return this.status !== 'ready' || this.breaker.state !== 'closed';
  }

  // The signature of ioredis's own (Redis.d.ts): every command, pipelined or not, passes here.
  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    // Before the connection is ready (the constructor's connect, the handshake of a reconnection) ioredis
    // refuses at once by itself (no offline queue): nothing to bound, nothing to count.
    if (this.breaker === undefined || this.status !== 'ready') return super.sendCommand(command, stream);
    if (!this.breaker.allows) {
      command.reject(new RedisBreakerOpenError('Redis breaker open: not asked'));
      return command.promise;
    }
    const sent = super.sendCommand(command, stream);
    this.bound(command);
    return sent;
  }

  /** Bounds `command` and tells the breaker how it ended. */
  private bound(command: Command): void {
    // Past the bound, the reply may already be read off the socket but not yet parsed when the event
    // loop was busy (the timer phase runs before the I/O poll): reject only after one poll, so a loaded
    // process does not take its own lag for a hung Redis.
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (!command.isResolved)
            command.reject(new Error(`Redis command timed out after ${this.timeoutMs} ms`));
        }),
      this.timeoutMs,
    );
    command.promise.then(
      () => {
        clearTimeout(timer);
        this.breaker.succeeded();
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (isReply(error)) this.breaker.succeeded();
        else this.breaker.failed(error instanceof Error ? error.message : String(error));
      },
    );
  }

  private scheduleProbe(): void {
    clearTimeout(this.probeTimer);
    this.probeTimer = setTimeout(() => {
      if (this.status === 'end') return;
      this.breaker.halfOpen();
      const ping = new Command('ping');
      super.sendCommand(ping);
      this.bound(ping);
    }, BREAKER.cooldownMs);
    this.probeTimer.unref();
  }
}

/** Whether Redis is configured and its callers are on their in-memory fallbacks now. */
export function redisDegraded(redis: Redis | undefined): boolean {
  if (redis === undefined) return false;
  return redis instanceof GuardedRedis ? redis.degraded : redis.status !== 'ready';
}
