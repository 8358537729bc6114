import type { Logger } from './logger.js';

/**
 * up: running; down: ended, waiting for the next attempt; restarting: an attempt is under way;
 * failed: gave up after `maxAttempts`; stopped: stopped on purpose.
 */
export type PartState = 'up' | 'down' | 'restarting' | 'failed' | 'stopped';

export interface PartStatus {
  name: string;
  state: PartState;
  /** When the part entered this state. */
  since: Date;
  /** When the part was last seen up before it ended (absent while up, and before it ever ended). */
  downSince?: Date;
  /** Restarts that brought it back. */
  restarts: number;
  /** Why it ended or why the last attempt failed. */
  lastError?: string;
}

export interface SuperviseOptions<T> {
  /** Names the part in logs and readiness ("embedded postgres", "anvil base"). */
  name: string;
  logger: Logger;
  /** Starts the part (again: same port, same data). */
  start(): Promise<T>;
  /** Resolves when the running part ends, whatever the reason (its value is logged). */
  exited(part: T): Promise<unknown>;
  stop(part: T): Promise<void>;
  /** Already started by the caller: supervised from now on (otherwise `start()` runs first). */
  initial?: T;
  /** Delay before the first attempt; doubled per attempt up to `maxDelayMs`. Default 250 ms. */
  initialDelayMs?: number;
  /** Default 10 s. */
  maxDelayMs?: number;
  /** Attempts in a row (no stable run between them) after which it gives up. Default 12. */
  maxAttempts?: number;
  /** A part up this long before it ends starts the backoff anew. Default 30 s. */
  stableMs?: number;
  /** Called on every change of state (the devnet reports its anvils to its parent with it). */
  onChange?(status: PartStatus): void;
}

export interface Supervised<T> {
  readonly name: string;
  /** The running part, when up. */
  current(): T | undefined;
  status(): PartStatus;
  /** Stops supervising first, then the part: a part stopped on purpose is never restarted. */
  stop(): Promise<void>;
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message.split('\n')[0]!;
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

/**
 * Restarts a part that ends (a child process it started, a server) with exponential backoff and a cap,
 * until it is back, or gives up after `maxAttempts` in a row. Every end, attempt, return and give-up is
 * logged; the state is queryable (readiness reports a part that is not up). The first start is not
 * retried: a part that cannot start at all fails its caller's start.
 */
export async function supervise<T>(options: SuperviseOptions<T>): Promise<Supervised<T>> {
  const { name, logger } = options;
  const initialDelayMs = options.initialDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 10_000;
  const maxAttempts = options.maxAttempts ?? 12;
  const stableMs = options.stableMs ?? 30_000;

  let part: T | undefined = options.initial ?? (await options.start());
  let status: PartStatus = { name, state: 'up', since: new Date(), restarts: 0 };
  let stopping = false;
  let attempt = 0;
  let recovering: Promise<void> | undefined;
  let wake: (() => void) | undefined;

  const set = (state: PartState, change: Partial<PartStatus> = {}) => {
    status = { ...status, ...change, state, since: new Date() };
    options.onChange?.({ ...status });
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wake = undefined;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
    });

  const recover = async () => {
    while (!stopping) {
      attempt++;
      if (attempt > maxAttempts) {
        set('failed');
        logger.error(
          { part: name, attempts: maxAttempts, err: status.lastError },
          'supervised part given up',
        );
        return;
      }
      const delayMs = Math.min(maxDelayMs, initialDelayMs * 2 ** (attempt - 1));
      await sleep(delayMs);
      if (stopping) return;
      set('restarting');
      logger.info({ part: name, attempt, delayMs }, 'supervised part restarting');
      try {
        const started = await options.start();
        if (stopping) {
          await options.stop(started).catch(() => {});
          return;
        }
        const downMs = Date.now() - (status.downSince?.getTime() ?? Date.now());
        part = started;
        set('up', { restarts: status.restarts + 1, downSince: undefined, lastError: undefined });
        logger.info({ part: name, attempt, downMs, restarts: status.restarts }, 'supervised part back up');
        watch(started);
        return;
      } catch (error) {
        if (stopping) return;
        set('down', { lastError: describe(error) });
        logger.warn({ part: name, attempt, err: status.lastError }, 'supervised part restart failed');
      }
    }
  };

  const watch = (running: T) => {
    const upAt = Date.now();
    void options.exited(running).then(
      (reason) => ended(running, upAt, reason),
      (error: unknown) => ended(running, upAt, error),
    );
  };
  const ended = (running: T, upAt: number, reason: unknown) => {
    if (stopping || part !== running) return;
    part = undefined;
    if (Date.now() - upAt >= stableMs) attempt = 0;
    set('down', { downSince: new Date(), lastError: describe(reason) });
    logger.warn({ part: name, reason: status.lastError }, 'supervised part ended; restarting it');
    recovering = recover().finally(() => {
      recovering = undefined;
    });
  };
  watch(part);

  let stopped: Promise<void> | undefined;
  return {
    name,
    current: () => part,
    status: () => ({ ...status }),
    stop() {
      stopped ??= (async () => {
        stopping = true;
        wake?.();
        await recovering;
        const running = part;
        part = undefined;
        if (running !== undefined) await options.stop(running);
        set('stopped');
      })();
      return stopped;
    },
  };
}

/** One line per part that is not up, for a readiness check: null when all are up. */
export function partsDown(parts: readonly PartStatus[]): string | null {
  const down = parts
    .filter((p) => p.state !== 'up')
    .map((p) => `${p.name} ${p.state} since ${(p.downSince ?? p.since).toISOString()}`);
  return down.length > 0 ? down.join('; ') : null;
}
