import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, spawnService } from '../../bench/processes.js';
import { portAnswers } from '../../devnet/anvil.js';
import { seedDataDir } from '../helpers/devnetSnapshot.js';
import { eventually } from '../helpers/load.js';
import { testPort } from '../helpers/ports.js';

/**
 * The default mode supervises what it started: an embedded Postgres or an anvil killed under it comes
 * back (same data directory and port), /readyz names it while it is down, and reads answer 503 (never
 * 500) meanwhile and 200 again after. Started as `npm start` does (main.ts).
 */
const DEVNET_PORT = testPort(19820);

let dataDir: string;
let service: ServiceProcess;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gw-supervise-'));
  // The run's seeded chains: what is supervised here is their anvils, not their first seeding.
  await seedDataDir(dataDir, DEVNET_PORT);
  service = await spawnService(
    {
      PORT: '0',
      DATA_DIR: dataDir,
      DEVNET_PORT: String(DEVNET_PORT),
      INTERNAL_TOKEN: 'supervision-internal-token-01234',
      LOG_LEVEL: process.env.SUPERVISION_LOG_LEVEL ?? 'info',
      // Each read of the test comes as another client (X-Forwarded-For): polling never meets a bucket.
      TRUST_PROXY: '1',
    },
    // A default-mode start (three chains seeded, Postgres initialised) takes minutes on a busy machine.
    { baseEnv: { PATH: process.env.PATH, HOME: process.env.HOME }, timeoutMs: 240_000 },
  );
}, 250_000);

afterAll(async () => {
  await service?.kill();
  await rm(dataDir, { recursive: true, force: true });
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const postmasterPid = () =>
  Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);

/** The anvil serving `port`, from the process table (its command line names the port). */
function anvilPid(port: number): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (!args[0]?.endsWith('anvil')) continue;
    if (args[args.indexOf('--port') + 1] === String(port)) return Number(entry);
  }
  throw new Error(`no anvil on port ${port}`);
}

/**
 * Processes of this service's parts, from the process table: a command line or environment naming its
 * data directory (Postgres, the devnet), or an anvil on one of its devnet ports.
 */
function processesOfThisService(): string[] {
  const ports = [0, 1, 2].map((offset) => String(DEVNET_PORT + offset));
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let args: string[];
    let environ = '';
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      environ = readFileSync(`/proc/${entry}/environ`, 'utf8');
    } catch {
      continue;
    }
    const anvilOfOurs = args[0]?.endsWith('anvil') && ports.includes(args[args.indexOf('--port') + 1] ?? '');
    if (anvilOfOurs || args.some((a) => a.includes(dataDir)) || environ.includes(dataDir))
      found.push(`${entry} ${args.join(' ')}`);
  }
  return found;
}

let client = 0;

/** The devnet child process of the service (its parent is the service, its script devnet/main.ts). */
function devnetPid(): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (ppid === service.child.pid && args.includes('devnet/main.ts')) return Number(entry);
    } catch {}
  }
  throw new Error('no devnet process');
}

interface Outage {
  /** The /readyz messages seen while not ready. */
  notReady: string[];
  /** Statuses of the read while not ready. */
  reads: number[];
  ms: number;
}

/** Polls /readyz and a read until /readyz was 503 and then 200 again and the read answers 200. */
async function watchOutage(read: string, timeoutMs: number): Promise<Outage> {
  const started = Date.now();
  const outage: Outage = { notReady: [], reads: [], ms: 0 };
  for (;;) {
    const [ready, answer] = await Promise.all([
      fetch(`${service.url}/readyz`),
      fetch(`${service.url}${read}`, {
        headers: { 'X-Forwarded-For': `10.1.${++client % 250}.${client >> 8}` },
      }),
    ]);
    const readyBody = (await ready.json()) as { error?: { message: string } };
    await answer.arrayBuffer();
    if (ready.status !== 200) {
      outage.notReady.push(readyBody.error?.message ?? String(ready.status));
      outage.reads.push(answer.status);
    } else if (outage.notReady.length > 0 && answer.status === 200) {
      outage.ms = Date.now() - started;
      return outage;
    }
    if (Date.now() - started > timeoutMs) {
      const postgres = service.logs.filter((l) => l.msg === 'embedded postgres').slice(-20);
      throw new Error(
        `not back within ${timeoutMs} ms: ${JSON.stringify(outage.notReady.slice(-2))} ${JSON.stringify(postgres.map((l) => l.postgres))}`,
      );
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('supervision in the default mode', () => {
  it('restarts a killed embedded Postgres: /readyz names it, reads answer 503 then 200', async () => {
    const before = postmasterPid();
    process.kill(before, 'SIGKILL');
    const outage = await watchOutage('/api/strategies?chain=base&limit=5', 90_000);
    expect(outage.notReady.some((m) => m.includes('embedded postgres'))).toBe(true);
    // Meanwhile the store's callers say it is unavailable (retryable), not a fault.
    expect(outage.reads.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(postmasterPid()).not.toBe(before);
    expect(alive(postmasterPid())).toBe(true);
    // Logged when the supervisor sees it up; log lines reach stdout in batches (up to 100 ms later, more
    // on a busy box: lib/logDestination.ts), so the line may follow the first 200.
    await expect
      .poll(
        () => service.logs.some((l) => l.msg === 'supervised part back up' && l.part === 'embedded postgres'),
        { timeout: 30_000 },
      )
      .toBe(true);
    // The pool reconnected: a read of the catalogue has rows.
    const list = (await (await fetch(`${service.url}/api/strategies?chain=base&limit=5`)).json()) as {
      data: { strategies: unknown[] };
    };
    expect(list.data.strategies.length).toBeGreaterThan(0);
  }, 100_000);

  it('restarts a killed anvil on its port: /readyz names it until the chain is back and indexed', async () => {
    const port = DEVNET_PORT + 2; // baseSepolia
    const before = anvilPid(port);
    process.kill(before, 'SIGKILL');
    const outage = await watchOutage('/api/strategies?chain=baseSepolia&limit=5', 45_000);
    expect(outage.notReady.some((m) => m.includes('anvil baseSepolia'))).toBe(true);
    expect(outage.reads.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(anvilPid(port)).not.toBe(before);
    // The restarted chain (empty without a state file) was deployed and seeded again, and indexed anew.
    await eventually(
      'baseSepolia strategies indexed again',
      async () => {
        const res = await fetch(`${service.url}/api/strategies?chain=baseSepolia&limit=5`, {
          headers: { 'X-Forwarded-For': '10.3.0.1' },
        });
        const body = (await res.json()) as { data?: { strategies: unknown[] } };
        return (body.data?.strategies.length ?? 0) > 0;
      },
      20_000,
      500,
    );
  }, 70_000);

  it('restarts a killed devnet process: its chains come back on their ports, seeded at the same addresses', async () => {
    const before = devnetPid();
    process.kill(before, 'SIGKILL');
    const outage = await watchOutage('/api/strategies?chain=base&limit=5', 90_000);
    expect(outage.notReady.some((m) => m.includes('devnet'))).toBe(true);
    expect(outage.reads.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(devnetPid()).not.toBe(before);
    // The chains the service knows (from the first manifest) are the chains the new devnet serves.
    await eventually(
      'base strategies indexed again',
      async () => {
        const res = await fetch(`${service.url}/api/strategies?chain=base&limit=5`, {
          headers: { 'X-Forwarded-For': '10.2.0.1' },
        });
        const body = (await res.json()) as { data?: { strategies: unknown[] } };
        return (body.data?.strategies.length ?? 0) > 0;
      },
      20_000,
      500,
    );
  }, 120_000);

  it('a stopping service does not bring back what it stops', async () => {
    const pgPid = postmasterPid();
    const before = new Set(processesOfThisService().map((p) => p.split(' ')[0]));
    expect(before.has(String(pgPid))).toBe(true);
    const exited = new Promise<number | null>((resolve) =>
      service.child.once('exit', (code) => resolve(code)),
    );
    // Its stdout ends after the exit: then every line it logged has been read.
    const stdoutEnded = new Promise((resolve) => service.child.stdout!.once('end', resolve));
    service.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    await stdoutEnded;
    // The service has exited, so it can start nothing more (its restart timers died with it), and what
    // it started before the exit is in the process table now: no Postgres, devnet or anvil of its own
    // that was not there before the stop (a restart under way would be one, even before it listens).
    expect(processesOfThisService().filter((p) => !before.has(p.split(' ')[0]!))).toEqual([]);
    // What it stopped is gone (polled: a process may take a moment to exit; the deadline only ends a
    // hung test).
    await eventually(
      'what the service stopped is gone',
      async () =>
        !alive(pgPid) &&
        (await Promise.all([0, 1, 2].map((offset) => portAnswers(DEVNET_PORT + offset)))).every((a) => !a),
      20_000,
      100,
    );
    expect(alive(pgPid)).toBe(false);
    for (const offset of [0, 1, 2]) expect(await portAnswers(DEVNET_PORT + offset)).toBe(false);
    const stopping = service.logs.findIndex((l) => l.msg === 'stopping');
    expect(stopping).toBeGreaterThan(-1);
    expect(service.logs.slice(stopping).filter((l) => String(l.msg).startsWith('supervised'))).toEqual([]);
  }, 30_000);
});
