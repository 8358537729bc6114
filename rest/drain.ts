import type { Server, ServerResponse } from 'node:http';

/** How often, while draining, sockets whose answer is done are closed. */
const SWEEP_MS = 20;

/**
 * The HTTP stop of a rolling restart, for `server`: `drainable(server)` (before it serves) follows the
 * answers in flight; `drain()` then stops accepting connections, closes idle keep-alive sockets at
 * once, and lets every request in flight (its body still arriving, or its answer being made) be
 * answered with `Connection: close`, its socket closed right after. After `boundMs`, the request
 * timeout (no request may take longer), what is left is cut.
 */
export function drainable(server: Server): { drain(boundMs: number): Promise<void> } {
  const inflight = new Set<ServerResponse>();
  let draining = false;
  server.prependListener('request', (_req, res) => {
    if (draining) {
      res.shouldKeepAlive = false;
      return;
    }
    inflight.add(res);
    res.once('close', () => inflight.delete(res));
  });
  return {
    drain(boundMs) {
      draining = true;
      for (const res of inflight) if (!res.headersSent) res.shouldKeepAlive = false;
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
