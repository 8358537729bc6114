import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The node flags the service runs with (package.json `start`, the Dockerfile; test/unit/runtime.test.ts
 * keeps them equal), given to every server a bench starts, ours and the baselines alike.
 * `--max-semi-space-size=64` (MB, default 16): a young generation large enough that the objects of the
 * requests in flight when it is collected are dead by the next collection instead of promoted; with the
 * default, promoted request garbage brought full (mark-compact) collections every few seconds under
 * load, each ~40 ms of marking on the main thread, and those were the list's p99 at half of peak
 * (bench/catalogue.ts: 15-39 ms with the default, 6-8 ms with 64).
 */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=64'];

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

/** Runs a TypeScript entry in its own process and waits for it to print `ready`. */
export async function spawnReady(
  entry: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    [...SERVER_NODE_FLAGS, '--import', 'tsx', join(ROOT, entry), ...args],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${entry} not ready in 120 s`)), 120_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/(^|\n)ready/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
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
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`main.ts exited before ready (code ${code}, signal ${signal})`));
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

/** CPU milliseconds (user + system) a process has used so far, from /proc (Linux); 0 once it is gone. */
export function cpuMs(pid: number, only?: 'user' | 'system'): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const user = only === 'system' ? 0 : Number(fields[11]);
    const system = only === 'user' ? 0 : Number(fields[12]);
    return ((user + system) * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** USER_HZ: 100 on every Linux this runs on (`getconf CLK_TCK`). */
const CLOCK_TICKS = 100;

/**
 * What a run was measured on. The box is shared (2 cores): the load average when the run ended says how
 * much its figures are worth.
 */
export function machine(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    cpus: cpus().length,
    model: cpus()[0]?.model,
    node: process.version,
    loadAverage: loadavg().map((l) => Number(l.toFixed(2))),
    ...extra,
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** One row per target from interleaved rounds: the median of each figure, failures summed. */
export function medianRow(name: string, results: LoadResult[]): LoadResult {
  return {
    name,
    requestsPerSec: Math.round(median(results.map((r) => r.requestsPerSec))),
    p50: median(results.map((r) => r.p50)),
    p90: median(results.map((r) => r.p90)),
    p99: median(results.map((r) => r.p99)),
    max: median(results.map((r) => r.max)),
    non2xx: results.reduce((s, r) => s + r.non2xx, 0),
    errors: results.reduce((s, r) => s + r.errors, 0),
    ...(results[0]?.cpuMsPerRequest
      ? {
          cpuMsPerRequest: Object.fromEntries(
            Object.keys(results[0].cpuMsPerRequest).map((k) => [
              k,
              Number(median(results.map((r) => r.cpuMsPerRequest?.[k] ?? 0)).toFixed(3)),
            ]),
          ),
        }
      : {}),
  };
}

export function printTable(rows: LoadResult[], baseline: Record<string, number>): void {
  const table = rows.map((r) => ({
    target: r.name,
    'req/s': r.requestsPerSec,
    'p50 ms': r.p50,
    'p99 ms': r.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    ...Object.fromEntries(
      Object.entries(baseline).map(([label, rps]) => [
        `× ${label}`,
        Number((r.requestsPerSec / rps).toFixed(2)),
      ]),
    ),
  }));
  console.table(table);
}

export function writeResult(name: string, data: unknown): string {
  const file = join(ROOT, 'bench', 'results', `${name}.json`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}

if (process.argv[1] === LIB) {
  const { name, url, options } = JSON.parse(process.argv[2]!) as {
    name: string;
    url: string;
    options: LoadOptions;
  };
  process.stdout.write(JSON.stringify(await loadHere(name, url, options)));
}

/** Latency figures of one series of sequential calls (bench/prepare.ts, bench/swap.ts). */
export interface LatencySeries {
  name: string;
  requests: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  max: number;
}

export function printLatencyTable(series: LatencySeries[]): void {
  console.table(
    series.map((s) => ({
      series: s.name,
      n: s.requests,
      'p50 ms': s.p50,
      'p90 ms': s.p90,
      'p99 ms': s.p99,
      'mean ms': s.mean,
      'max ms': s.max,
    })),
  );
}
