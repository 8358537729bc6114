/**
 * The heavy clients of `npm run bench:fairness` (bench/fairness.ts): the exporting key's positions and
 * its export loops, the five misbehaving webhook endpoints, and the analytics loops.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { percentileOfSorted } from './measure.js';

export const ANALYTICS_TOKEN = 'bench-fairness-analytics-token-4567';
export const EXPORTS = 20;
export const ANALYTICS_LOOPS = 2;
/** Longest a refused analytics loop waits before asking again. */
const MAX_RETRY_WAIT_MS = 10_000;
const SEED_BATCH = 20_000;
const BIG_BODY_BYTES = 50 * 1024 * 1024;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
export const round = (ms: number) => Math.round(ms * 10) / 10;
export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return round(percentileOfSorted(sorted, p));
}
export const count = (map: Record<string, number>, key: string | number) => {
  map[key] = (map[key] ?? 0) + 1;
};
/** Seconds of a Retry-After header (1 when absent or unreadable). */
export const retryAfterMs = (value: string | null | undefined) => {
  const seconds = Number(value);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000;
};

/** A local webhook endpoint that misbehaves (`handle`), counting the requests it gets. */
export interface BadEndpoint {
  name: string;
  url: string;
  hits: number;
  stop(): Promise<void>;
}

export async function badEndpoint(
  name: string,
  handle: (req: http.IncomingMessage, res: http.ServerResponse, timers: Set<NodeJS.Timeout>) => void,
): Promise<BadEndpoint> {
  const timers = new Set<NodeJS.Timeout>();
  const endpoint = { name, url: '', hits: 0, stop: async () => {} };
  const server = http.createServer((req, res) => {
    endpoint.hits++;
    res.on('error', () => {});
    req.on('error', () => {});
    handle(req, res, timers);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  endpoint.stop = async () => {
    for (const timer of timers) clearTimeout(timer);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return endpoint;
}

/** The five bad endpoints of key B; the 302 points at the healthy receiver (a followed redirect shows). */
export async function badEndpoints(redirectTo: string): Promise<BadEndpoint[]> {
  return Promise.all([
    badEndpoint('never answers', (req) => req.resume()),
    badEndpoint('200 after 8 s', (req, res, timers) => {
      req.resume();
      const timer = setTimeout(() => {
        timers.delete(timer);
        res.writeHead(200).end('ok');
      }, 8_000);
      timers.add(timer);
    }),
    badEndpoint('answers 500', (req, res) => {
      req.resume();
      res.writeHead(500, { 'content-type': 'text/plain' }).end('broken');
    }),
    badEndpoint('50 MB body', (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': BIG_BODY_BYTES });
      const chunk = Buffer.alloc(64 * 1024, 120);
      let sent = 0;
      const pump = () => {
        while (sent < BIG_BODY_BYTES && !res.destroyed) {
          const n = Math.min(chunk.length, BIG_BODY_BYTES - sent);
          sent += n;
          if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n)))
            return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      pump();
    }),
    badEndpoint('302 redirect', (req, res) => {
      req.resume();
      res.writeHead(302, { location: redirectTo }).end();
    }),
  ]);
}

/** Seeds `rows` positions of `keyId` on `chain` (base): parameterized INSERT … SELECT generate_series, in batches. */
export async function seedPositions(
  databaseUrl: string,
  keyId: string,
  chain: {
    key: string;
    chainId: number;
    tokens: Array<{ symbol: string; address: string; decimals: number }>;
  },
  rows: number,
): Promise<number> {
  const started = performance.now();
  const [a, b] = chain.tokens as [(typeof chain.tokens)[0], (typeof chain.tokens)[0]];
  const payload = {
    position: {
      tokenA: { symbol: a.symbol, decimals: a.decimals },
      tokenB: { symbol: b.symbol, decimals: b.decimals },
    },
  };
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (let first = 1; first <= rows; first += SEED_BATCH) {
      const last = Math.min(rows, first + SEED_BATCH - 1);
      await client.query(
        `INSERT INTO positions (strategy_hash, key_id, chain_key, chain_id, wallet, token_a, token_b, amount_a,
           amount_b, maker_fee_bps, protocol_fee_bps, request_fingerprint, payload, metadata, created_at)
         SELECT '0x' || lpad(to_hex(g), 64, '0'), $1, $2, $3, '0x' || lpad(to_hex(g), 40, '0'), $4, $5,
                g * 1000, g * 2000, 30, 5, 'fp', $6::jsonb,
                jsonb_build_object('orderRef', 'fairness-' || g),
                now() - g * interval '1 millisecond'
           FROM generate_series($7::int, $8::int) g`,
        [
          keyId,
          chain.key,
          chain.chainId,
          a.address.toLowerCase(),
          b.address.toLowerCase(),
          JSON.stringify(payload),
          first,
          last,
        ],
      );
    }
    await client.query('ANALYZE positions');
  } finally {
    await client.end();
  }
  return Math.round(performance.now() - started);
}

export type ExportFigures = Record<string, unknown>;

/** Phase (a): EXPORTS loops of the CSV export of `key`, on an http agent of their own, until `stop()`. */
export function exportLoad(url: string, key: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: EXPORTS });
  const statuses: Record<string, number> = {};
  const inFlight = new Set<http.ClientRequest>();
  const completedMs: number[] = [];
  let bytes = 0;
  let truncated = 0;
  let cutAtPhaseEnd = 0;
  let running = true;
  let wake: Array<() => void> = [];
  const one = () =>
    new Promise<number>((resolve) => {
      const started = performance.now();
      const req = http.get(
        `${url}/v1/positions/export?format=csv`,
        { agent, headers: { authorization: `Bearer ${key}` } },
        (res) => {
          const status = res.statusCode ?? 0;
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
          });
          res.on('end', () => {
            inFlight.delete(req);
            count(statuses, status);
            if (status === 200) completedMs.push(performance.now() - started);
            resolve(
              status === 429 || status === 503 ? retryAfterMs(res.headers['retry-after'] as string) : 0,
            );
          });
          res.on('aborted', () => {
            inFlight.delete(req);
            if (running) truncated++;
            else cutAtPhaseEnd++;
            resolve(0);
          });
        },
      );
      inFlight.add(req);
      req.on('error', () => {
        if (!inFlight.delete(req)) return;
        if (running) count(statuses, 'error');
        else cutAtPhaseEnd++;
        resolve(0);
      });
    });
  const loop = async () => {
    while (running) {
      const wait = await one();
      // A legitimate client waits as told before it asks again (cut short when the phase ends).
      if (wait > 0 && running)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          wake.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
    }
  };
  const loops = Array.from({ length: EXPORTS }, loop);
  let stopped: Promise<ExportFigures> | undefined;
  const stop = async () => {
    running = false;
    for (const w of wake) w();
    wake = [];
    for (const req of inFlight) req.destroy();
    await Promise.all(loops);
    agent.destroy();
    return {
      concurrent: EXPORTS,
      statuses,
      completed: statuses['200'] ?? 0,
      refused: (statuses['429'] ?? 0) + (statuses['503'] ?? 0),
      truncated,
      cutAtPhaseEnd,
      megabytes: Math.round(bytes / 1024 / 102.4) / 10,
      completedExportMs: { p50: percentile(completedMs, 50), max: percentile(completedMs, 100) },
    };
  };
  return {
    stop(): Promise<ExportFigures> {
      stopped ??= stop();
      return stopped;
    },
  };
}

/** The analytics document: `aliases` × volumeSeries(HOUR) over `days` days ending at the current hour's end. */
export function seriesDocument(aliases: number, days: number): string {
  const hour = 3_600_000;
  const to = Math.ceil(Date.now() / hour) * hour;
  const from = to - days * 24 * hour;
  const range = `from: "${new Date(from).toISOString()}", to: "${new Date(to).toISOString()}"`;
  const one = (i: number) =>
    `s${i}: volumeSeries(granularity: HOUR, ${range}) { buckets { start volumeUsd swapCount makerFeesUsd protocolFeesUsd } }`;
  return `{ ${Array.from({ length: aliases }, (_, i) => one(i)).join(' ')} }`;
}

const ANALYTICS_HEADERS = {
  'content-type': 'application/json',
  authorization: `Bearer ${ANALYTICS_TOKEN}`,
  // One client, as a real analytics dashboard is.
  'x-forwarded-for': '192.0.2.77',
};

type GraphqlAnswer = {
  status: number;
  ok: boolean;
  message?: string;
  retryAfter?: string | null;
  bytes: number;
};

export async function postAnalytics(url: string, query: string): Promise<GraphqlAnswer> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: ANALYTICS_HEADERS,
    body: JSON.stringify({ query }),
  });
  const text = await res.text();
  let errors: Array<{ message?: string }> | undefined;
  // A 4.5 MB answer is not parsed here (this process shares the two cores): only one naming errors.
  if (res.status !== 200 || text.includes('"errors"')) {
    try {
      errors = (JSON.parse(text) as { errors?: Array<{ message?: string }> }).errors;
    } catch {
      errors = [{ message: text.slice(0, 200) }];
    }
  }
  const ok = res.status === 200 && !errors?.length;
  return {
    status: res.status,
    ok,
    message: errors?.[0]?.message?.slice(0, 200),
    retryAfter: res.headers.get('retry-after'),
    bytes: text.length,
  };
}

/** The heaviest document the service accepts: the largest aliases × days first; every refusal is kept. */
export async function heaviestAccepted(url: string) {
  const candidates = [20, 10, 5, 2, 1]
    .flatMap((aliases) => [92, 30, 7].map((days) => ({ aliases, days })))
    .sort((x, y) => y.aliases * y.days - x.aliases * x.days || y.aliases - x.aliases);
  const refused: Array<{ aliases: number; days: number; status: number; message?: string }> = [];
  for (const c of candidates) {
    const answer = await postAnalytics(url, seriesDocument(c.aliases, c.days));
    if (answer.ok) return { ...c, bytes: answer.bytes, refused };
    refused.push({ ...c, status: answer.status, message: answer.message });
  }
  throw new Error(`every analytics document was refused: ${JSON.stringify(refused)}`);
}

/** Phase (c): ANALYTICS_LOOPS loops of `document`, each sent as soon as the last is answered. */
export function analyticsLoad(url: string, document: string) {
  const statuses: Record<string, number> = {};
  const acceptedMs: number[] = [];
  let accepted = 0;
  let refused = 0;
  let running = true;
  let firstRefusal: string | undefined;
  const loop = async () => {
    while (running) {
      const started = performance.now();
      const answer = await postAnalytics(url, document).catch(
        (): GraphqlAnswer => ({ status: 0, ok: false, message: 'network error', bytes: 0 }),
      );
      count(statuses, answer.status);
      if (answer.ok) {
        accepted++;
        acceptedMs.push(performance.now() - started);
        continue;
      }
      refused++;
      firstRefusal ??= `${answer.status} ${answer.message ?? ''}`;
      if ((answer.status === 429 || answer.status === 503) && running)
        await sleep(Math.min(retryAfterMs(answer.retryAfter), MAX_RETRY_WAIT_MS));
    }
  };
  const loops = Array.from({ length: ANALYTICS_LOOPS }, loop);
  let stopped: Promise<Record<string, unknown>> | undefined;
  const stop = async () => {
    running = false;
    await Promise.all(loops);
    return {
      loops: ANALYTICS_LOOPS,
      accepted,
      refused,
      statuses,
      firstRefusal: firstRefusal ?? null,
      acceptedMs: { p50: percentile(acceptedMs, 50), p99: percentile(acceptedMs, 99) },
    };
  };
  return {
    stop(): Promise<Record<string, unknown>> {
      stopped ??= stop();
      return stopped;
    },
  };
}
