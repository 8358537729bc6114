import type { Server } from 'node:http';

/** How often, while draining, sockets whose answer is done are closed. */
const SWEEP_MS = 20;

/**
 * Stops `server` as a rolling restart needs: no new connections; idle keep-alive sockets closed at
 * once; every request in flight (its body still arriving, or its answer being made) answered, and its
 * socket closed as soon as the answer is out (node would keep it open for the keep-alive timeout).
 * After `boundMs`, the request timeout (no request may take longer), what is left is cut.
 */
export function drain(server: Server, boundMs: number): Promise<void> {
  return new Promise((resolve) => {
    // A request that came in on a kept-alive socket just before it was closed: answered, then closed.
    server.prependListener('request', (_req, res) => {
      res.shouldKeepAlive = false;
    });
    const sweep = setInterval(() => server.closeIdleConnections(), SWEEP_MS);
    const cut = setTimeout(() => server.closeAllConnections(), boundMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(cut);
      resolve();
    });
  });
}
