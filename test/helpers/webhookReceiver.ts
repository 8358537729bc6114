/**
 * A real HTTP receiver of webhooks on 127.0.0.1: records every request (headers and raw body) and
 * answers what the test says (a status, or no answer at all).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** What the next requests get: an HTTP status, or `hang` (never answered). */
  answer: number | 'hang';
  /** Resolves once `count` requests matching `filter` have arrived. */
  waitFor(count: number, filter?: (r: Received) => boolean, timeoutMs?: number): Promise<Received[]>;
  stop(): Promise<void>;
}

/** The verified `{ type, timestamp, data }` of a request, or a throw (standardwebhooks' own verifier). */
export function verified<T = { type: string; data: Record<string, unknown> }>(
  secret: string,
  r: Received,
): T {
  const headers: Record<string, string> = {};
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'])
    headers[name] = String(r.headers[name] ?? '');
  return new Webhook(secret).verify(r.body, headers) as T;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const waiters = new Set<() => void>();
  const state = { answer: 200 as number | 'hang' };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ at: Date.now(), headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      for (const wake of waiters) wake();
      if (state.answer === 'hang') return;
      res.writeHead(state.answer, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    get answer() {
      return state.answer;
    },
    set answer(value) {
      state.answer = value;
    },
    waitFor(count, filter = () => true, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const matching = received.filter(filter);
          if (matching.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(matching);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `${received.filter(filter).length} of ${count} webhook requests within ${timeoutMs} ms`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
