/**
 * The processes a bench starts: servers (spawnReady, the service itself with spawnService) and
 * one-shot workers (runApart), each with the service's node flags where it serves, and killed if the
 * bench exits first.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The node flags the service runs with (package.json `start`, the Dockerfile; test/unit/runtime.test.ts
 * keeps them equal), given to every server a bench starts, ours and the baselines alike.
 * - `--max-semi-space-size=32` (MB per semi-space, default 16): a young generation large enough that the
 *   garbage of the requests in flight dies young. 64 (the earlier setting) cost 128 MB of resident young
 *   generation.
 * - `--heap-growing-percent=50`: a full collection once the old generation is 1.5x what was live after the
 *   last one, instead of V8's up to 4x. Under load node's http server promotes about 5% of what it
 *   allocates into the old generation (its request and response objects, the express hello-world's as
 *   much as ours; it starts at the first full collection and stays), so the old generation climbed from
 *   ~55 MB to ~230 MB between collections: the gateway's RSS peaked at 490-550 MB in bench:catalogue.
 * Measured with bench:catalogue on a quiet box, one run each: 64 alone: peak RSS 506 MB, list 9880 req/s,
 * 0.70x express, p99 at half of peak 15.7 ms; these two: 297 MB, 8745 req/s, 0.76x, 13.0 ms.
 * - `--no-allocation-site-pretenuring`: V8 may decide, from what survived its young collections at one
 *   moment (start-up work such as installing graphile-worker's schema was enough), to allocate a site's
 *   objects straight into the old generation, for the rest of the process's life. A request's objects
 *   referenced from such objects outlive their request until the next full collection: the list then
 *   promoted 14-15 KB per request instead of 4-5 and cost 0.25-0.31 ms of CPU per request instead of
 *   0.17-0.24.
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
 * The processes a bench started and that still run. They are killed if the bench exits first (a closed
 * pipe on stdout, an uncaught error), so no server is left running and holding its test database: all by
 * one `exit` listener (one per process went past node's ten in bench:reads, which runs eleven at once:
 * MaxListenersExceededWarning).
 */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function killedWithThisProcess(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
}

/**
 * The replies a bench's server prints as `<prefix> <json>` lines (its probe's reports), each handed to the
 * request that asked for it: `onLine` goes to `spawnReady`/`startGateway`; `ask(send)` sends a request
 * (a signal, a line on the server's stdin) and resolves with the next reply, or fails after `timeoutMs`.
 */
export function lineReplies<T>(prefix: string, timeoutMs: number) {
  let answer: ((reply: T) => void) | null = null;
  return {
    onLine(line: string): void {
      if (line.startsWith(`${prefix} `)) answer?.(JSON.parse(line.slice(prefix.length + 1)) as T);
    },
    ask(send: () => void): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          answer = null;
          reject(new Error(`no ${prefix} reply in ${timeoutMs} ms`));
        }, timeoutMs);
        answer = (reply) => {
          clearTimeout(timer);
          answer = null;
          resolve(reply);
        };
        send();
      });
    },
  };
}

/**
 * The gateway of the catalogue benches (bench/servers/catalogue.ts: the real service, no indexer) in a
 * process of its own on a free port, started as `spawnReady` starts it; `paths` keep their real rate
 * limiter with a limit the load never reaches. Its base URL (no trailing slash), process and stop.
 */
export async function startGateway(
  paths: readonly string[],
  env: Record<string, string>,
  options: { nodeArgs?: string[]; onLine?: (line: string) => void } = {},
): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const port = await freePort();
  const server = await spawnReady(
    'bench/servers/catalogue.ts',
    [String(port), paths.join(',')],
    env,
    options,
  );
  return { url: `http://127.0.0.1:${port}`, child: server.child, stop: server.stop };
}

/**
 * Runs a TypeScript entry in its own process and waits for it to print `ready`. `nodeArgs`: node flags
 * after SERVER_NODE_FLAGS (BENCH_NODE_FLAGS still last); `onLine`: each line it prints after `ready`
 * (without it, what it prints is read and dropped, as a log shipper's pipe would be).
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
    // Drained to the end (a server logging per request must not block on a full pipe): line by line
    // for `onLine`, else unread once it is ready (an access log is not split into lines in this process).
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (ready) return options.onLine?.(line);
      if (line !== 'ready') return;
      ready = true;
      clearTimeout(timer);
      if (!options.onLine) {
        lines.close();
        child.stdout!.on('data', () => {}).resume();
      }
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
      // No drain grace unless asked: a bench or test stopping a service needs no load balancer's time.
      env: { SHUTDOWN_GRACE_MS: '0', ...(options.baseEnv ?? process.env), ...env },
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
