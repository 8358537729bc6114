/**
 * Load for the benches: `load` (autocannon, in a process of its own, with its CPU), the rotation of
 * paths and of clients it sends, and the small HTTP helpers of the single-client benches (bareServer,
 * post, startProfile). The processes themselves are started by bench/processes.ts.
 */
import { writeFileSync } from 'node:fs';
import { Agent, createServer as createHttpServer, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { ownCpuMsSince } from './measure.js';
import { runApart } from './processes.js';

/** The figures of one load run (autocannon's, or paced.ts's open-loop one); latencies in ms. */
export interface LoadResult {
  name: string;
  requestsPerSec: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  /** Requests answered in the run. */
  total?: number;
  /** CPU milliseconds the load generator's process used for the run. */
  generatorCpuMs?: number;
  /** CPU milliseconds per answered request, by process (when the caller measured them). */
  cpuMsPerRequest?: Record<string, number>;
  /** The server's chain RPC requests per answered request (when the caller counted them). */
  rpcPerRequest?: number;
}

/** A distinct client per request: `10.x.y.z` from a counter (the service runs with TRUST_PROXY=1). */
export function distinctClients(): (request: autocannon.Request) => autocannon.Request {
  let n = 0;
  return (request) => {
    n = (n + 1) % 16_777_216;
    request.headers = {
      ...request.headers,
      'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
    };
    return request;
  };
}

export interface LoadOptions {
  connections?: number;
  duration?: number;
  headers?: Record<string, string>;
  overallRate?: number;
  method?: 'GET' | 'POST';
  /** Request path and query, appended to `url`'s origin (default: `url` as given). */
  path?: string;
  /**
   * Paths taken in turn from ONE rotation shared by every connection, as independent clients would
   * spread them (the paced client of paced.ts sends the same way). Not autocannon's `requests` list:
   * there each connection walks the list from its start, so the connections ask for the same path at
   * the same moment, and a batch that answers them together (store/batch.ts) keeps them in step.
   */
  paths?: string[];
  body?: string;
  /** Send every request as another client (a distinct X-Forwarded-For), so no read bucket fills. */
  distinctClients?: boolean;
}

/**
 * One autocannon run: 20 connections by default; the generator shares the 2 cores with the server.
 * It runs in a fresh node process of its own (as paced.ts's client does): in the bench's process,
 * after earlier runs, autocannon's own garbage and JIT state slowed it down, bare node:http measured
 * 35-38k req/s late in `npm run bench` against 52-56k early, and a slower client is a lighter load.
 */
export function load(name: string, url: string, options: LoadOptions = {}): Promise<LoadResult> {
  return runApart<LoadResult>(LIB, { name, url, options }, `load run ${name}`);
}

const LIB = fileURLToPath(import.meta.url);

/** `load`, in this process; with the CPU it used (user + system) as `generatorCpuMs`. */
async function loadHere(name: string, url: string, options: LoadOptions): Promise<LoadResult> {
  const cpu = process.cpuUsage();
  const setups: Array<(request: autocannon.Request) => autocannon.Request> = [];
  if (options.paths) setups.push(rotation(options.paths));
  if (options.distinctClients) setups.push(distinctClients());
  const request: autocannon.Request = {
    method: options.method ?? 'GET',
    ...(options.path === undefined ? {} : { path: options.path }),
    ...(options.body === undefined ? {} : { body: options.body }),
    ...(setups.length > 0
      ? { setupRequest: (r: autocannon.Request) => setups.reduce((next, setup) => setup(next), r) }
      : {}),
  };
  const result = await autocannon({
    url,
    connections: options.connections ?? 20,
    duration: options.duration ?? 8,
    headers: options.headers ?? {},
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
    ...(options.method || options.path || options.body || setups.length > 0 ? { requests: [request] } : {}),
  });
  const generatorCpuMs = Math.round(ownCpuMsSince(cpu));
  return {
    name,
    requestsPerSec: Math.round(result.requests.average),
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors,
    total: result.requests.total,
    generatorCpuMs,
  };
}

/** The next of `paths` for each request, whichever connection sends it. */
function rotation(paths: string[]): (request: autocannon.Request) => autocannon.Request {
  let n = 0;
  return (request) => ({ ...request, path: paths[n++ % paths.length]! });
}

if (process.argv[1] === LIB) {
  const { name, url, options } = JSON.parse(process.argv[2]!) as {
    name: string;
    url: string;
    options: LoadOptions;
  };
  process.stdout.write(JSON.stringify(await loadHere(name, url, options)));
}

/**
 * A bare node:http server answering every request with `body` (JSON), in this process: the floor a
 * client's own cost is measured against (bench/prepare.ts, bench/swap.ts).
 */
export async function bareServer(body: string): Promise<{ url: string; close(): void }> {
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/`, close: () => server.close() };
}

/** node:http with one kept-alive socket: a lighter client than fetch, so a figure is the server's. */
export const sequentialAgent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One request over that socket: its status and body (bench/prepare.ts, bench/swap.ts, bench/mcp.ts). */
export function send(
  url: string,
  method: 'GET' | 'POST',
  body: string | null,
  headers: Record<string, string>,
): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: sequentialAgent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve([res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')]));
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

/** One POST over that socket. */
export const post = (url: string, body: string | null, headers: Record<string, string>) =>
  send(url, 'POST', body, headers);

/**
 * A CPU profile of this process from now until `stop(file)`, which writes it (Chrome's .cpuprofile, as
 * `--cpu-prof` does) and returns the file: for one phase of a bench rather than the whole process.
 */
export async function startProfile(): Promise<{ stop(file: string): Promise<string> }> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return {
    async stop(file) {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
}
