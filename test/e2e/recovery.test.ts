/**
 * The default mode recovers by itself from what a crash leaves behind (started as `npm start`, with a
 * data directory kept between starts): a chain's saved state truncated, all three truncated, the
 * devnet's directory removed under a kept database. Each time every chain is indexed again, the list,
 * the detail and the maker view agree, readiness ends ready with no chain degraded, and the log holds
 * no warning loop: at most one error line per chain saying it was replaced.
 */
import { readdirSync, readFileSync, readlinkSync, statSync, truncateSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, spawnService } from '../../bench/processes.js';
import { eventually, until } from '../helpers/load.js';
import { testPort } from '../helpers/ports.js';

const DEVNET_PORT = testPort(19830);
const CHAINS = ['base', 'arc', 'baseSepolia'];

let dataDir: string;
let service: ServiceProcess | undefined;

const start = async (
  env: Record<string, string> = {},
): Promise<{ service: ServiceProcess; startedAt: number }> => {
  const startedAt = performance.now();
  service = await spawnService(
    {
      PORT: '0',
      DATA_DIR: dataDir,
      DEVNET_PORT: String(DEVNET_PORT),
      INTERNAL_TOKEN: 'recovery-internal-token-0123456',
      LOG_LEVEL: 'info',
      METRICS_TOKEN: 'recovery-metrics-token-0123456',
      ...env,
    },
    { baseEnv: { PATH: process.env.PATH, HOME: process.env.HOME } },
  );
  return { service, startedAt };
};

async function get<T>(url: string): Promise<{ status: number; body: T }> {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as T };
}

/** What the last check saw, for the message of a wait that ran out. */
let lastSeen = '';

/** Every chain has strategies in the roll-up, and /readyz is 200 naming no chain. */
async function everyChainIndexed(s: ServiceProcess): Promise<boolean> {
  const stats = await get<{ data: { chains: Array<{ chain: string; count: number }> } }>(
    `${s.url}/api/stats`,
  );
  const counted = new Map(stats.body.data.chains.map((c) => [c.chain, c.count]));
  const ready = await get<{ status?: string; degraded?: string[] }>(`${s.url}/readyz`);
  lastSeen = `counts ${JSON.stringify([...counted])}, readyz ${ready.status} ${JSON.stringify(ready.body)}`;
  if (!CHAINS.every((c) => (counted.get(c) ?? 0) > 0)) return false;
  return ready.status === 200 && !(ready.body.degraded ?? []).some((d) => d.startsWith('chain:'));
}

/** Waits for every chain indexed; a wait that runs out says what it saw last. */
const waitEveryChain = (what: string, s: ServiceProcess) =>
  eventually(what, () => everyChainIndexed(s), 120_000, 200).catch((error: Error) => {
    const warnings = s.logs.filter((l) => Number(l.level) >= 40).slice(-5);
    throw new Error(`${error.message}; last seen: ${lastSeen}; last warnings: ${JSON.stringify(warnings)}`);
  });

/** Whatever the list shows, the detail and the maker view show too. */
async function listAgrees(s: ServiceProcess): Promise<void> {
  const list = await get<{ data: { strategies: Array<{ hash: string; chain: string; maker: string }> } }>(
    `${s.url}/api/strategies?limit=100`,
  );
  expect(list.status).toBe(200);
  expect(list.body.data.strategies.length).toBeGreaterThan(0);
  const makers = new Set<string>();
  for (const strategy of list.body.data.strategies) {
    const detail = await fetch(`${s.url}/api/strategy-detail?hash=${strategy.hash}&chain=${strategy.chain}`);
    expect(detail.status, `detail of ${strategy.chain} ${strategy.hash}`).toBe(200);
    makers.add(`${strategy.chain} ${strategy.maker}`);
  }
  for (const key of makers) {
    const [chain, maker] = key.split(' ');
    const view = await fetch(`${s.url}/api/makers/${maker}?chain=${chain}`);
    expect(view.status, `maker ${key}`).toBe(200);
  }
}

/** No warning loop, and no chain told replaced more than once. */
function logSaysOnce(s: ServiceProcess): void {
  const reorgWarnings = s.logs.filter((l) => (l.level as number) === 40 && /reorg/.test(String(l.msg)));
  expect(reorgWarnings).toEqual([]);
  const replaced = s.logs.filter((l) => /chain replaced/.test(String(l.msg)));
  expect(replaced.length).toBeLessThanOrEqual(CHAINS.length);
  expect(new Set(replaced.map((l) => l.chain)).size).toBe(replaced.length);
}

async function recovers(what: string): Promise<void> {
  const { service: s, startedAt } = await start();
  const waited = await waitEveryChain(`${what}: every chain indexed`, s);
  console.log(
    `${what}: every chain indexed ${Math.round(performance.now() - startedAt)} ms after start (${waited} ms after ready)`,
  );
  await listAgrees(s);
  logSaysOnce(s);
  await s.stop();
  service = undefined;
}

/** The pid of the process listening on 127.0.0.1:`port` (from /proc/net/tcp and the fds of /proc). */
function pidListeningOn(port: number): number | null {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inode = readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .find((f) => f[1]?.endsWith(`:${hexPort}`) && f[3] === '0A')?.[9];
  if (!inode) return null;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`))
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`) return Number(pid);
    } catch {
      // A process that ended, or one we may not read.
    }
  }
  return null;
}

const stateFiles = () =>
  readdirSync(join(dataDir, 'devnet'))
    .filter((f) => /^anvil-.*\.json$/.test(f))
    .map((f) => join(dataDir, 'devnet', f));

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gw-recovery-'));
  const { service: s } = await start();
  await waitEveryChain('first start: every chain indexed', s);
  await s.stop();
  service = undefined;
}, 180_000);

// A test that failed leaves no service behind for the next one to reuse.
afterEach(async (context) => {
  if (context.task.result?.state !== 'fail') return;
  await service?.kill();
  service = undefined;
});

afterAll(async () => {
  await service?.kill();
  await rm(dataDir, { recursive: true, force: true });
});

/**
 * The service the previous test left running, else a fresh one with every chain indexed. A start is
 * most of what a test here costs (a process, an embedded Postgres, three anvils), so the tests that
 * need a running service take turns on one: the chain killed, then the stuck indexer, then the -9.
 * It runs with the stuck-indexer test's short stall, which the others wait through like any delay.
 */
async function running(): Promise<ServiceProcess> {
  if (service) return service;
  const { service: s } = await start({ INDEXER_STALL_SECONDS: '2' });
  await waitEveryChain('every chain indexed', s);
  return s;
}

describe('recovery of the default mode from a torn state', () => {
  it('one chain’s state file truncated', async () => {
    const [file] = stateFiles().filter((f) => f.endsWith('anvil-base.json'));
    truncateSync(file!, Math.floor(statSync(file!).size / 2));
    await recovers('base truncated');
  }, 180_000);

  it('all three state files truncated', async () => {
    const files = stateFiles();
    expect(files).toHaveLength(3);
    for (const file of files) truncateSync(file, 100);
    await recovers('all truncated');
  }, 180_000);

  it('a chain killed while the service runs comes back from its saved state, and the catalogue follows it', async () => {
    const s = await running();
    const anvilPid = pidListeningOn(DEVNET_PORT);
    expect(anvilPid).not.toBeNull();
    process.kill(anvilPid!, 'SIGKILL');
    // The devnet's supervisor starts it again on its port from the last save.
    await eventually(
      'the chain back',
      async () => {
        const pid = pidListeningOn(DEVNET_PORT);
        return pid !== null && pid !== anvilPid && (await everyChainIndexed(s));
      },
      120_000,
      200,
    );
    await listAgrees(s);
    logSaysOnce(s);
  }, 180_000);

  it('readiness names a chain whose indexer is stuck, and stops naming it once it moves again', async () => {
    const s = await running();
    const anvilPid = pidListeningOn(DEVNET_PORT + 2);
    expect(anvilPid).not.toBeNull();
    // A hung node: the indexer's reads of baseSepolia wait, and its syncs stop completing.
    process.kill(anvilPid!, 'SIGSTOP');
    try {
      const stuck = await until(
        () =>
          get<{ status: string; degraded?: string[]; reasons?: Record<string, string> }>(`${s.url}/readyz`),
        (r) => (r.body.degraded ?? []).includes('chain:baseSepolia'),
        120_000,
      );
      expect(stuck.status).toBe(200);
      expect(stuck.body.degraded).toEqual(['chain:baseSepolia']);
      expect(stuck.body.reasons?.['chain:baseSepolia']).toMatch(/no indexer progress/);
      const metrics = await (
        await fetch(`${s.url}/metrics`, {
          headers: { authorization: 'Bearer recovery-metrics-token-0123456' },
        })
      ).text();
      expect(metrics).toMatch(/gateway_indexer_chain_degraded\{chain="baseSepolia"\} 1/);
      expect(metrics).toMatch(/gateway_indexer_chain_degraded\{chain="base"\} 0/);
    } finally {
      process.kill(anvilPid!, 'SIGCONT');
    }
    await waitEveryChain('no chain degraded', s);
  }, 240_000);

  it('a gateway killed with -9 starts again at once on the same data directory', async () => {
    const s = await running();
    await s.kill();
    service = undefined;
    // Its embedded PostgreSQL and its devnet may still be running or stopping: the next start copes.
    await recovers('after kill -9');
  }, 180_000);

  it('the devnet directory removed under a kept database', async () => {
    await rm(join(dataDir, 'devnet'), { recursive: true, force: true });
    await recovers('devnet removed');
  }, 180_000);
});
