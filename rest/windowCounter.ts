import type { Redis } from 'ioredis';

/**
 * Fixed-window counters in Redis, counted in batches. Every `increment` made in one turn of the event
 * loop (the requests node parsed in one I/O phase) goes to Redis as ONE script call that counts each key
 * in turn, instead of one call per request: one command object, one socket write and one reply for the
 * batch, and on Redis's side one script run.
 *
 * Why not rate-limiter-flexible's RateLimiterRedis (its RateLimiterMemory is still the in-memory
 * fallback): it sends one command per request, and ioredis's auto-pipelining flushes on
 * `process.nextTick`, i.e. after each socket's callback, so under load each request was its own Redis
 * write: sending those commands was 11.6% of the gateway's CPU on the cached reads and the list in
 * `npm run bench` (its profile, BENCH_CPU_PROF), and the /v1 paths paid a second one for the read of a
 * key's window before its look-up (rest/keyGuard.ts).
 *
 * The counting is exactly RateLimiterRedis's (its Lua script, per key): the window starts at the first
 * count with a TTL of the window, every count is an INCRBY that Redis orders, and the reply is each
 * count's value and the window's remaining milliseconds. So the keys, their values and their expiry
 * are the same as the library's: replicas running either share one window. A key counted twice in a
 * batch gets two consecutive values, as two calls would. A `read` (a window's count, not counting)
 * rides in the same script call: GET and PTTL, 0 for a window that does not exist.
 *
 * Batches do not wait for each other: each turn's batch is sent at once, bounded like any command
 * (lib/redisBreaker.ts), so a slow Redis delays a request by one command's bound, never by a queue.
 * A failed batch rejects each of its counts; the caller falls back to its in-memory counters.
 * All keys of a batch go to one script call, which Redis Cluster would refuse across slots: the service
 * uses a single Redis (REDIS_URL).
 */
const SCRIPT = `
local out = {}
local seconds = tonumber(ARGV[1])
local ops = ARGV[2]
for i = 1, #KEYS do
  local key = KEYS[i]
  if string.sub(ops, i, i) == 'r' then
    out[2 * i - 1] = tonumber(redis.call('get', key) or '0')
    out[2 * i] = redis.call('pttl', key)
  else
    redis.call('set', key, 0, 'EX', seconds, 'NX')
    local count = redis.call('incrby', key, 1)
    local ttl = redis.call('pttl', key)
    if ttl == -1 then
      redis.call('expire', key, seconds)
      ttl = 1000 * seconds
    end
    out[2 * i - 1] = count
    out[2 * i] = ttl
  end
end
return out
`;

/** The command ioredis defines from SCRIPT (EVALSHA, with EVAL when Redis does not know the script yet). */
const COMMAND = 'gatewayWindowCount';

interface ScriptClient {
  [COMMAND](numberOfKeys: number, ...args: Array<string | number>): Promise<number[]>;
}

export interface WindowCount {
  /** The key's count in its window, this one included. */
  count: number;
  /** Milliseconds until the window ends. */
  msLeft: number;
}

interface Pending {
  key: string;
  /** `i`: count one request; `r`: read the count. */
  op: 'i' | 'r';
  resolve: (count: WindowCount) => void;
  reject: (error: unknown) => void;
}

/** Most keys in one script call; the rest go in the next. */
const MAX_BATCH = 256;

export class WindowCounter {
  private pending: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly redis: Redis,
    private readonly windowSeconds: number,
  ) {
    if (!(COMMAND in redis)) redis.defineCommand(COMMAND, { lua: SCRIPT });
  }

  /** Counts one request against `key`'s window. */
  increment(key: string): Promise<WindowCount> {
    return this.enqueue(key, 'i');
  }

  /** `key`'s window as it stands, without counting (count 0 and msLeft < 0 when there is none). */
  read(key: string): Promise<WindowCount> {
    return this.enqueue(key, 'r');
  }

  private enqueue(key: string, op: Pending['op']): Promise<WindowCount> {
    return new Promise<WindowCount>((resolve, reject) => {
      this.pending.push({ key, op, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // After the I/O phase: every request parsed in it joins this batch.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    while (this.pending.length > 0) {
      const batch = this.pending.length <= MAX_BATCH ? this.pending : this.pending.slice(0, MAX_BATCH);
      this.pending = this.pending.length <= MAX_BATCH ? [] : this.pending.slice(MAX_BATCH);
      this.send(batch);
    }
  }

  private send(batch: Pending[]): void {
    const client = this.redis as unknown as ScriptClient;
    let sent: Promise<number[]>;
    try {
      const ops = batch.map((p) => p.op).join('');
      sent = client[COMMAND](batch.length, ...batch.map((p) => p.key), this.windowSeconds, ops);
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    }
    sent.then(
      (reply) => {
        for (let i = 0; i < batch.length; i++) {
          const count = Number(reply[2 * i]);
          const msLeft = Number(reply[2 * i + 1]);
          if (Number.isFinite(count) && Number.isFinite(msLeft)) batch[i]!.resolve({ count, msLeft });
          else batch[i]!.reject(new Error('Redis window count: malformed reply'));
        }
      },
      (error: unknown) => {
        for (const p of batch) p.reject(error);
      },
    );
  }
}
