import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Agent, createServer as createHttpServer, request } from 'node:http';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The node flags the service runs with (package.json `start`, the Dockerfile; test/unit/runtime.test.ts
 * keeps them equal), given to every server a bench starts, ours and the baselines alike.
 * - `--max-semi-space-size=32` (MB per semi-space, default 16): a young generation large enough that the
 *   garbage of the requests in flight dies young. 64 (issue 5) cost 128 MB of resident young generation.
 * - `--heap-growing-percent=50`: a full collection once the old generation is 1.5x what was live after the
 *   last one, instead of V8's up to 4x. Under load node's http server promotes about 5% of what it
 *   allocates into the old generation (its request and response objects, the express hello-world's as
 *   much as ours; it starts at the first full collection and stays), so the old generation climbed from
 *   ~55 MB to ~230 MB between collections: the gateway's RSS peaked at 490-550 MB in bench:catalogue.
 * Issue 22, bench:catalogue on a quiet box, one run each: 64 alone: peak RSS 506 MB, list 9880 req/s,
 * 0.70x express, p99 at half of peak 15.7 ms; these two: 297 MB, 8745 req/s, 0.76x, 13.0 ms.
 * - `--no-allocation-site-pretenuring`: V8 may decide, from what survived its young collections at one
 *   moment (start-up work such as installing graphile-worker's schema was enough), to allocate a site's
 *   objects straight into the old generation, for the rest of the process's life. A request's objects
 *   referenced from such objects outlive their request until the next full collection: the list then
 *   promoted 14-15 KB per request instead of 4-5 and cost 0.25-0.31 ms of CPU per request instead of
 *   0.17-0.24 (bench:promotion, eleven runs; bench/results/RESULTS.md, eleventh pass).
 */
export const SERVER_NODE_FLAGS = [
  '--max-semi-space-size=32',
  '--heap-growing-percent=50',
  '--no-allocation-site-pretenuring',
];

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * BENCH_CPU_PROF_DIR: every server a bench starts writes a V8 CPU profile there when it stops
 * (`--cpu-prof`, one `.cpuprofile` per process; open it in Chrome DevTools or speedscope).
 * BENCH_NODE_FLAGS: more node / V8 flags for those servers, space-separated (e.g. `--trace-gc`, or a
 * heap setting to compare with SERVER_NODE_FLAGS; later flags win).
 */
export function profileFlags(): string[] {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  const extra = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  return [...(dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []), ...extra];
}

/**
 * A process a bench started is killed if the bench exits first (a closed pipe on stdout, an uncaught
 * error), so no server is left running and holding its test database.
 */
export function killedWithThisProcess(child: ChildProcess): void {
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
}

/**
 * Runs a TypeScript entry in its own process and waits for it to print `ready`. `nodeArgs`: node flags
 * after SERVER_NODE_FLAGS (BENCH_NODE_FLAGS still last); `onLine`: each line it prints after `ready`.
 * The server is killed if this process exits first (`killedWithThisProcess`).
 */
export async function spawnReady(
  entry: string,
  args: string[],
  env: Record<string, string> = {},
  options: { nodeArgs?: string[]; onLine?: (line: string) => void } = {},
): Promise<{ child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    [
      ...SERVER_NODE_FLAGS,
      ...(options.nodeArgs ?? []),
      ...profileFlags(),
      '--import',
      'tsx',
      join(ROOT, entry),
      ...args,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  killedWithThisProcess(child);
  await new Promise<void>((resolve, reject) => {
    let ready = false;
    const timer = setTimeout(() => reject(new Error(`${entry} not ready in 120 s`)), 120_000);
    // Drained to the end (a server logging per request must not block on a full pipe).
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (ready) return options.onLine?.(line);
      if (line !== 'ready') return;
      ready = true;
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code}`)));
  });
  return {
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** A gateway process (`main.ts`), its pino log lines as they came, and ways to end it. */
export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  /** Every JSON log line printed on stdout so far (pino: `msg`, `level`, `component`, `chain`…). */
  logs: Array<Record<string, unknown>>;
  /** SIGTERM (the service stops what it started), then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL: no clean-up at all, as a crashed replica. */
  kill(): Promise<void>;
}

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Runs the service itself (`node <SERVER_NODE_FLAGS> --import tsx main.ts`, as `npm start`) with `env`
 * over this process's environment and resolves when it logged `gateway ready` (store migrated,
 * indexer's first pass done when embedded).
 */
export async function spawnService(
  env: Record<string, string>,
  options: {
    timeoutMs?: number;
    nodeArgs?: string[];
    /** The environment `env` goes over (default: this process's). */
    baseEnv?: NodeJS.ProcessEnv;
  } = {},
): Promise<ServiceProcess> {
  const child = spawn(
    process.execPath,
    [...SERVER_NODE_FLAGS, ...(options.nodeArgs ?? []), '--import', 'tsx', join(ROOT, 'main.ts')],
    {
      cwd: ROOT,
      env: { ...(options.baseEnv ?? process.env), ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  killedWithThisProcess(child);
  const logs: Array<Record<string, unknown>> = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timeoutMs = options.timeoutMs ?? 120_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`main.ts not ready in ${timeoutMs} ms`));
    }, timeoutMs);
    let pending = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        let entry: Record<string, unknown>;
        try {
          entry = JSON.parse(line) as Record<string, unknown>;
        } catch {
          continue;
        }
        logs.push(entry);
        if (entry.msg === 'gateway ready' && typeof entry.url === 'string') {
          clearTimeout(timer);
          resolve(entry.url);
        }
      }
    });
    child.once('exit', async (code, signal) => {
      clearTimeout(timer);
      // The last lines it logged say why (a fatal start error is logged before the exit); its stdout may
      // end after the exit event.
      if (child.stdout && !child.stdout.readableEnded)
        await new Promise((r) => {
          child.stdout?.once('end', r);
          setTimeout(r, 1000);
        });
      const last = logs
        .slice(-3)
        .map((l) => JSON.stringify({ level: l.level, msg: l.msg, err: l.err }))
        .join('; ');
      reject(new Error(`main.ts exited before ready (code ${code}, signal ${signal}); last logged: ${last}`));
    });
  });
  const kill = async () => {
    child.kill('SIGKILL');
    await exitOf(child);
  };
  return {
    child,
    url,
    logs,
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exitOf(child);
      clearTimeout(timer);
    },
    kill,
  };
}

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

/**
 * Runs `module` (a TypeScript entry whose main block reads `argument` as JSON from argv[2] and writes
 * its result as JSON on stdout) in a fresh node process; resolves that result.
 */
export async function runApart<T>(module: string, argument: unknown, what: string): Promise<T> {
  const child = spawn(process.execPath, ['--import', 'tsx', module, JSON.stringify(argument)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  killedWithThisProcess(child);
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${what} exited with ${code}`);
  return JSON.parse(out) as T;
}

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
  const used = process.cpuUsage(cpu);
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
    generatorCpuMs: Math.round((used.user + used.system) / 1000),
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

/** One POST over that socket: its status and body (bench/prepare.ts, bench/swap.ts). */
export function post(
  url: string,
  body: string | null,
  headers: Record<string, string>,
): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers, agent: sequentialAgent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve([res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')]));
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

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
