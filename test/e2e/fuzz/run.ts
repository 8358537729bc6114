/** The runner: sends the generated requests as raw bytes over real sockets and checks every answer. */

import type { RawResponse } from '../../helpers/rawHttp.js';
import { KeepAliveConnection, type RawRequest, rawRequest } from '../../helpers/rawHttp.js';
import { CONCURRENCY } from './config.js';
import { check } from './oracle.js';
import type { Case } from './request.js';

export interface Outcome {
  c: Case;
  response?: RawResponse;
  failure?: string;
  ms: number;
}

const FRAMING = new Set(['content-length', 'transfer-encoding', 'expect', 'upgrade', 'connection', 'host']);

/**
 * Well-formed HTTP that cannot desynchronise a connection: these go over a kept-alive connection (as
 * most clients send), the rest on a connection of their own.
 */
function wellFormed(r: RawRequest): boolean {
  const body = r.body === undefined ? 0 : Buffer.byteLength(r.body);
  const headers = r.headers ?? [];
  return (
    ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'].includes(r.method) &&
    /^\/[\x21-\x7e]*$/.test(r.target) &&
    r.target.length + headers.reduce((n, [k, v]) => n + k.length + v.length, 0) < 8_000 &&
    body < 16_000 &&
    headers.every(
      ([k, v]) => /^[A-Za-z0-9-]+$/.test(k) && /^[\x20-\x7e]*$/.test(v) && !FRAMING.has(k.toLowerCase()),
    )
  );
}

/**
 * Sends the cases, CONCURRENCY at a time, to the service on `port`, and checks each answer (the 200
 * prepares' positions go into `preparedIds`).
 */
export async function run(cases: Case[], port: number, preparedIds: Set<string>): Promise<Outcome[]> {
  const outcomes: Outcome[] = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    const connection = new KeepAliveConnection(port);
    while (next < cases.length) {
      const i = next++;
      const c = cases[i]!;
      const started = performance.now();
      try {
        const response = wellFormed(c.request)
          ? await connection.send(c.request, { timeoutMs: 20_000 })
          : await rawRequest(port, c.request, { timeoutMs: 20_000 });
        const ms = performance.now() - started;
        outcomes[i] = { c, response, failure: check(c, response, preparedIds) ?? undefined, ms };
      } catch (error) {
        const ms = performance.now() - started;
        outcomes[i] = { c, failure: `no answer: ${(error as Error).message}`, ms };
      }
    }
    connection.close();
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return outcomes;
}

/** A failure as the test prints it: the request (cut short) and the answer. */
export function describeFailure(o: Outcome): string {
  const r = o.c.request;
  const body = r.body === undefined ? '' : Buffer.from(r.body).toString('utf8').slice(0, 1000);
  return [
    `[${o.c.endpoint}${o.c.internal ? ' internal' : ''}, seed ${o.c.seed}] ${o.failure}`,
    `  ${JSON.stringify(r.method)} ${JSON.stringify(r.target.slice(0, 200))}`,
    `  headers ${JSON.stringify((r.headers ?? []).map(([k, v]) => [k, v.slice(0, 80)]))}`,
    body && `  body ${JSON.stringify(body)}`,
    o.response && `  → ${o.response.status} ${o.response.body.toString('utf8').slice(0, 200)}`,
  ]
    .filter(Boolean)
    .join('\n');
}
