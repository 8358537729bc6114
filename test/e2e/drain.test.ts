/**
 * The stop of a replica behind a load balancer (rest/drain.ts): readiness turns to 503 at once while the
 * listener keeps accepting and answering every request for the grace (each answer closing its
 * connection), then the listener closes, what it accepted is answered, and the stop completes.
 *   - in process: `startService` and `stop({ graceMs })`, a grace that ends by itself, with requests held
 *     in flight across its end;
 *   - as `npm start` runs it (main.ts, over a bare anvil chain, no indexer): SIGTERM with
 *     SHUTDOWN_GRACE_MS, a second signal ending the grace; SIGINT skipping it.
 * Every order is asserted by events (readiness seen 503, the burst answered, the listener gone, the
 * stop resolved), never by the clock.
 * Ports: anvil 19860.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, spawnService } from '../../bench/processes.js';
import { type Anvil, portAnswers, startAnvil } from '../../devnet/anvil.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { type RestRoute, readBody } from '../../rest/route.js';
import { type RunningService, startService } from '../../service.js';
import { eventually } from '../helpers/load.js';
import { testPort } from '../helpers/ports.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { parseResponse, type RawResponse, serialise } from '../helpers/rawHttp.js';
import { INTERNAL_TOKEN } from '../helpers/service.js';

const ANVIL_PORT = testPort(19860);
const BURST = 100;

let database: { url: string; drop(): Promise<void> };

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database?.drop();
});

interface ErrorBody {
  error?: { code: string; message: string };
}

/** /readyz says 503 because this replica drains (other reasons, e.g. no roll-up yet, do not count). */
async function readyzDraining(url: string): Promise<boolean> {
  const res = await fetch(`${url}/readyz`);
  const body = (await res.json()) as ErrorBody;
  return (
    res.status === 503 &&
    body.error?.code === 'UPSTREAM_UNAVAILABLE' &&
    body.error.message.includes('draining')
  );
}

/** `count` GETs of /healthz at once, each as `<status> <Connection header>` or the error's code. */
function burst(url: string, count = BURST): Promise<string[]> {
  return Promise.all(
    Array.from({ length: count }, () =>
      fetch(`${url}/healthz`).then(
        async (res) => {
          await res.arrayBuffer();
          return `${res.status} ${res.headers.get('connection')}`;
        },
        (error: Error) => `${(error.cause as NodeJS.ErrnoException | undefined)?.code ?? error.message}`,
      ),
    ),
  );
}

/** One socket kept open across requests, as a load balancer's or a client's pool keeps it. */
function keptConnection(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let received = Buffer.alloc(0);
  let wake = () => {};
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    wake();
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  void closed.then(() => wake());
  return {
    closed,
    async get(path: string): Promise<RawResponse> {
      received = Buffer.alloc(0);
      socket.write(
        serialise(
          { method: 'GET', target: path, headers: [['Connection', 'keep-alive']] },
          `127.0.0.1:${port}`,
        ),
      );
      for (;;) {
        const response = parseResponse(received, { closed: socket.destroyed });
        if (response) return response;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
    destroy: () => socket.destroy(),
  };
}

describe('stop with a grace (in process)', () => {
  // Handlers held until the test lets them answer: requests in flight across the end of the grace.
  let entered: Array<() => void> = [];
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const heldRoute: RestRoute = {
    method: 'GET',
    path: '/probe/held',
    bucket: 'stats',
    handle: async (ctx) => {
      for (const tell of entered.splice(0)) tell();
      await released;
      return { body: readBody(ctx, { held: true }) };
    },
  };
  const holdOne = async (url: string) => {
    const inHandler = new Promise<void>((resolve) => entered.push(resolve));
    const answer = fetch(`${url}/probe/held`).then(async (res) => {
      await res.arrayBuffer();
      return `${res.status} ${res.headers.get('connection')}`;
    });
    await inHandler;
    return answer;
  };

  let svc: RunningService | undefined;

  beforeAll(async () => {
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      INTERNAL_TOKEN,
      LOG_LEVEL: 'silent',
      DATABASE_URL: database.url,
      REDIS_PREFIX: `test:${randomBytes(4).toString('hex')}:`,
      INDEXER: 'off',
      // Far past this test's life: the requests held across the grace are answered, never cut.
      REQUEST_TIMEOUT_MS: '60000',
    });
    svc = await startService(config, {
      chains: [],
      extraRoutes: [heldRoute],
      logger: createLogger('silent'),
    });
  });

  afterAll(async () => {
    release();
    entered = [];
    await svc?.stop();
  });

  it('answers 503 on /readyz at once, serves a burst through the grace, then closes the listener and answers what it accepted', async () => {
    const running = svc!;
    const url = running.url;
    const port = Number(new URL(url).port);
    expect(await readyzDraining(url)).toBe(false);

    // A keep-alive connection and a request in flight, both from before the stop.
    const kept = keptConnection(port);
    const first = await kept.get('/healthz');
    expect([first.status, first.headers.connection]).toEqual([200, 'keep-alive']);
    const heldBefore = holdOne(url);

    const events: string[] = [];
    const stopped = running.stop({ graceMs: 2_000 }).then(() => {
      events.push('stopped');
    });

    // Readiness turns at once: the stop set it before its first await.
    expect(await readyzDraining(url)).toBe(true);
    // Everything else is still accepted and answered, each answer closing its connection.
    const answers = await burst(url);
    expect(new Set(answers)).toEqual(new Set(['200 close']));
    expect(answers).toHaveLength(BURST);
    // The kept connection gets its answer too, and is then closed: its client reconnects elsewhere.
    const second = await kept.get('/healthz');
    expect([second.status, second.headers.connection]).toEqual([200, 'close']);
    await kept.closed;
    // A request accepted during the grace and still in flight when it ends.
    const heldDuring = holdOne(url);
    // All the above happened inside the grace: the listener was still open and the stop not done.
    expect(await portAnswers(port)).toBe(true);
    expect(events).toEqual([]);

    // The grace ends by itself: new connections are refused…
    await eventually('listener closed', async () => !(await portAnswers(port)), 30_000, 20);
    events.push('listener closed');
    // …while the stop waits for what the listener accepted: both held requests, answered in full.
    release();
    expect(await heldBefore).toBe('200 close');
    expect(await heldDuring).toBe('200 close');
    events.push('held answered');
    await stopped;
    expect(events).toEqual(['listener closed', 'held answered', 'stopped']);
    expect(await portAnswers(port)).toBe(false);
    svc = undefined;
  });
});

describe('main.ts on a signal', () => {
  let anvil: Anvil;
  let dir: string;
  let service: ServiceProcess | undefined;

  const spawn = () =>
    spawnService({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      INTERNAL_TOKEN,
      DATABASE_URL: database.url,
      CHAINS_FILE: join(dir, 'chains.json'),
      INDEXER: 'off',
      // Longer than any test here may take: only a second signal, or SIGINT, can end it in time.
      SHUTDOWN_GRACE_MS: '120000',
    });

  const exitOf = (child: ServiceProcess['child']) =>
    new Promise<number | null>((resolve) => {
      if (child.exitCode !== null) return resolve(child.exitCode);
      child.once('exit', (code) => resolve(code));
    });

  const stoppingLog = (s: ServiceProcess) => s.logs.find((l) => l.msg === 'stopping');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gw-drain-'));
    anvil = await startAnvil({ port: ANVIL_PORT, chainId: 8453 });
    // A preset chain on a bare anvil of its chain id: the gateway starts and serves; nothing is indexed.
    const chain = {
      key: 'base',
      rpcUrl: anvil.rpcUrl,
      feeReceiver: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    };
    await writeFile(join(dir, 'chains.json'), JSON.stringify({ chains: [chain] }));
  });

  afterAll(async () => {
    await service?.kill();
    await anvil?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('SIGTERM: readiness 503 while a burst is all answered, a second signal ends the grace, exit 0', async () => {
    service = await spawn();
    const { url, child } = service;
    const port = Number(new URL(url).port);
    const exited = exitOf(child);

    child.kill('SIGTERM');
    await eventually('readiness draining', () => readyzDraining(url), 30_000, 20);
    const answers = await burst(url);
    expect(new Set(answers)).toEqual(new Set(['200 close']));
    expect(await portAnswers(port)).toBe(true);
    // The line is written asynchronously: wait for it to come through the pipe, not for the clock.
    await eventually('the stopping line', async () => stoppingLog(service!) !== undefined, 30_000, 20);
    expect(stoppingLog(service)).toMatchObject({ signal: 'SIGTERM', graceMs: 120_000 });

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(await portAnswers(port)).toBe(false);
    // Nothing complained on the way out.
    const from = service.logs.findIndex((l) => l.msg === 'stopping');
    expect(service.logs.slice(from).filter((l) => Number(l.level) >= 40)).toEqual([]);
    service = undefined;
  }, 60_000);

  it('SIGINT: stops without the grace, exit 0', async () => {
    service = await spawn();
    const { url, child } = service;
    const port = Number(new URL(url).port);
    const exited = exitOf(child);

    child.kill('SIGINT');
    // One signal, and the grace of 120 s configured: the exit comes only because SIGINT skips it.
    expect(await exited).toBe(0);
    expect(stoppingLog(service)).toMatchObject({ signal: 'SIGINT', graceMs: 0 });
    expect(await portAnswers(port)).toBe(false);
    service = undefined;
  }, 60_000);
});
