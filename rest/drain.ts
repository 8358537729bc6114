import type { Server, ServerResponse } from 'node:http';

/** How often, while draining, sockets whose answer is done are closed. */
const SWEEP_MS = 20;

export interface Drainable {
  /** True from the start of a drain: /readyz answers 503 so a load balancer stops sending here. */
  readonly draining: boolean;
  /**
   * Keeps serving for `graceMs` (every answer with `Connection: close`), then stops accepting and lets
   * what was accepted finish, cutting what is left after `boundMs`.
   */
  drain(boundMs: number, graceMs?: number): Promise<void>;
  /** Ends the grace of a drain now (a second signal: stop at once). */
  endGrace(): void;
}

/**
 * The HTTP stop of a rolling restart, for `server`: `drainable(server)` (before it serves) follows the
 * answers in flight; `drain()` first keeps serving for a grace (readiness says 503 meanwhile, and each
 * answer closes its connection, so a load balancer stops sending here and keep-alive clients reconnect
 * elsewhere: a listener closed at once left the connections in its accept queue reset), then stops
 * accepting connections, closes idle keep-alive sockets at once, and lets every request in flight (its
 * body still arriving, or its answer being made) be answered with `Connection: close`, its socket
 * closed right after. After `boundMs`, the request timeout (no request may take longer), what is left
 * is cut.
 */
export function drainable(server: Server): Drainable {
  const inflight = new InflightSlots();
  let draining = false;
  let endGrace = () => {};
  server.prependListener('request', (_req, res) => {
    if (draining) {
      res.shouldKeepAlive = false;
      return;
    }
    const slot = inflight.add(res);
    res.once('close', () => inflight.remove(slot));
  });
  return {
    get draining() {
      return draining;
    },
    endGrace: () => endGrace(),
    async drain(boundMs, graceMs = 0) {
      draining = true;
      for (const res of inflight.all()) if (!res.headersSent) res.shouldKeepAlive = false;
      if (graceMs > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, graceMs);
          endGrace = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      return new Promise((resolve) => {
        // An answer whose head was out before the drain began keeps its socket: closed once idle.
        const sweep = setInterval(() => server.closeIdleConnections(), SWEEP_MS);
        const cut = setTimeout(() => server.closeAllConnections(), boundMs);
        server.close(() => {
          clearInterval(sweep);
          clearTimeout(cut);
          resolve();
        });
      });
    },
  };
}

/**
 * The answers in flight, each in a slot of one array that a finished answer empties and the next one
 * takes: no request adds to or deletes from a hash table. A Set did, and at each of its rehashes V8 left
 * the obsolete table in the old generation, where it kept the responses it held, and all they reach,
 * alive through every scavenge until a mark-compact. The
 * array grows only past the most answers ever in flight at once.
 */
class InflightSlots {
  private readonly slots: Array<ServerResponse | undefined> = [];
  private readonly free: number[] = [];

  add(res: ServerResponse): number {
    const slot = this.free.pop() ?? this.slots.length;
    this.slots[slot] = res;
    return slot;
  }

  remove(slot: number): void {
    this.slots[slot] = undefined;
    this.free.push(slot);
  }

  *all(): Iterable<ServerResponse> {
    for (const res of this.slots) if (res) yield res;
  }
}
