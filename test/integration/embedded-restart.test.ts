/**
 * The embedded PostgreSQL of a gateway killed with -9 (a child process standing in for it): the watcher
 * it left stops the postmaster; where that watcher was defeated too (the postmaster orphaned, still
 * running), the next start on the same data directory stops it cleanly first and starts, with the data
 * written before. Real processes throughout; every wait is for an event, under a generous deadline.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { alive, argsOf, parentOf } from '../../lib/processes.js';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../store/embedded.js';
import { stopStalePostmaster, watchPostmaster } from '../../store/postmasterGuard.js';
import { eventually } from '../helpers/load.js';

const HOLDER = fileURLToPath(new URL('../helpers/embeddedHolder.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DEADLINE_MS = 60_000;

const dirs: string[] = [];
const databases: EmbeddedDatabase[] = [];
const children: ChildProcess[] = [];
const postmasters: number[] = [];

afterAll(async () => {
  for (const db of databases) await db.stop().catch(() => {});
  for (const child of children) child.kill('SIGKILL');
  // A scenario that failed half-way may leave its server running (stopped, even): never past this file.
  // Only a server on one of our directories: a pid that ended here may belong to another process now.
  const ours = postmasters.filter((pid) =>
    dirs.some((dir) => (argsOf(pid) ?? []).some((a) => a.startsWith(dir))),
  );
  try {
    for (const pid of ours) {
      try {
        process.kill(pid, 'SIGCONT');
        process.kill(pid, 'SIGINT');
      } catch {
        // Ended meanwhile.
      }
    }
    await eventually('the servers started here stopped', async () => !ours.some(alive), DEADLINE_MS, 20);
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}, 2 * DEADLINE_MS);

const gone = (what: string, pid: number) => eventually(what, async () => !alive(pid), DEADLINE_MS, 20);

function tempDataDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `gw-${name}-`));
  dirs.push(dir);
  return dir;
}

/** A logger whose lines the test reads. */
function capturingLogger(): { logger: pino.Logger; lines: Array<{ msg: string; pid?: number }> } {
  const lines: Array<{ msg: string; pid?: number }> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

/** Starts the stand-in gateway on `dataDir`; resolves once its server runs, with the postmaster's pid. */
function holder(dataDir: string): Promise<{ child: ChildProcess; pid: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', HOLDER, dataDir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => {
      const { pid } = JSON.parse(line) as { pid: number };
      postmasters.push(pid);
      resolve({ child, pid });
    });
    child.once('exit', (code, signal) => reject(new Error(`holder exited (${code ?? signal})`)));
  });
}

const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

/** The pid of the watcher shell of postmaster `pid`. */
function watcherOf(pid: number): number | null {
  for (const entry of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    const args = argsOf(Number(entry)) ?? [];
    if (args.includes('pg-watch') && args.includes(String(pid))) return Number(entry);
  }
  return null;
}

/** The stand-in gateway killed with -9 after its watcher was: its server left running, orphaned. */
async function orphanedServer(dataDir: string): Promise<number> {
  const { child, pid } = await holder(dataDir);
  const watcher = watcherOf(pid);
  expect(watcher).not.toBeNull();
  process.kill(watcher!, 'SIGKILL');
  await gone('the watcher killed', watcher!);
  await killed(child);
  expect(alive(pid)).toBe(true);
  expect(parentOf(pid)).not.toBe(child.pid);
  expect(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]).toBe(String(pid));
  return pid;
}

async function rowsOf(url: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('SELECT v FROM kept')).rows;
  } finally {
    await client.end();
  }
}

// Each scenario starts PostgreSQL once or twice and waits for processes to end: generous deadlines.
const scenario = { timeout: 3 * DEADLINE_MS };

// Process facts come from /proc.
const onLinux = describe.skipIf(process.platform !== 'linux');

onLinux('the embedded PostgreSQL of a gateway killed with -9', scenario, () => {
  it('is stopped by the watcher that gateway left', async () => {
    const { child, pid } = await holder(tempDataDir('watch'));
    expect(watcherOf(pid)).not.toBeNull();
    await killed(child);
    await gone('the postmaster stopped by its watcher', pid);
    await eventually('its watcher ended', async () => watcherOf(pid) === null, DEADLINE_MS, 20);
  });

  it('started again at once on the same data directory, keeps its data', async () => {
    const dataDir = tempDataDir('again');
    const { child } = await holder(dataDir);
    await killed(child);
    // Its server may still be running or shutting down (the watcher's SIGINT): the start copes.
    const database = await startEmbeddedPostgres({ dataDir, logger: capturingLogger().logger });
    databases.push(database);
    expect(await rowsOf(database.url)).toEqual([{ v: 'written before the kill' }]);
  });

  it('a watcher disarmed ends without sending its signal', async () => {
    // The watched process tells each signal it gets, in the order they come.
    const script =
      "for (const s of ['SIGINT', 'SIGUSR2']) process.on(s, () => console.log(s));" +
      "setInterval(() => {}, 1 << 30); console.log('ready');";
    const target = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(target);
    const lines = createInterface({ input: target.stdout! });
    const heard: string[] = [];
    lines.on('line', (line) => line !== 'ready' && heard.push(line));
    const told = (what: string) =>
      new Promise<void>((resolve) => lines.on('line', (line) => line === what && resolve()));
    await told('ready');
    const watch = watchPostmaster(target.pid!);
    const watcher = watcherOf(target.pid!);
    expect(watcher).not.toBeNull();
    watch.disarm();
    await gone('the disarmed watcher', watcher!);
    // A SIGINT from the watcher would be pending before this one, so heard first.
    process.kill(target.pid!, 'SIGUSR2');
    await told('SIGUSR2');
    expect(heard).toEqual(['SIGUSR2']);
  });

  it('left orphaned and running, is stopped cleanly by the next start', async () => {
    const dataDir = tempDataDir('orphan');
    const orphan = await orphanedServer(dataDir);

    const { logger, lines } = capturingLogger();
    const database = await startEmbeddedPostgres({ dataDir, logger });
    databases.push(database);
    expect(alive(orphan)).toBe(false);
    expect(lines.filter((l) => l.pid === orphan).map((l) => l.msg)).toEqual([
      'embedded postgres left running by a process that is gone: stopping it (fast shutdown) before starting',
    ]);
    expect(await rowsOf(database.url)).toEqual([{ v: 'written before the kill' }]);

    // An orderly stop ends the new server's watcher too.
    const pid = Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    postmasters.push(pid);
    const watcher = watcherOf(pid);
    expect(watcher).not.toBeNull();
    await database.stop();
    expect(alive(pid)).toBe(false);
    await gone('the watcher of a server stopped in order', watcher!);
  });

  it('left orphaned and ignoring the fast shutdown, is killed before the next start', async () => {
    const dataDir = tempDataDir('hung');
    const orphan = await orphanedServer(dataDir);
    process.kill(orphan, 'SIGSTOP'); // Stopped, it never acts on SIGINT.
    const { logger } = capturingLogger();
    // A short grace: the fast shutdown cannot happen, so only the last resort is under test.
    await stopStalePostmaster(join(dataDir, 'postgres'), logger, 100);
    expect(alive(orphan)).toBe(false);
    expect(() => statSync(join(dataDir, 'postgres', 'postmaster.pid'))).toThrow();

    const database = await startEmbeddedPostgres({ dataDir, logger });
    databases.push(database);
    expect(await rowsOf(database.url)).toEqual([{ v: 'written before the kill' }]);
  });

  it('a lock file naming a dead pid, or one reused by another process, stops no start', async () => {
    const dataDir = tempDataDir('lock');
    const databaseDir = join(dataDir, 'postgres');
    let database = await startEmbeddedPostgres({ dataDir, logger: capturingLogger().logger });
    const lockText = readFileSync(join(databaseDir, 'postmaster.pid'), 'utf8');
    const port = Number(new URL(database.url).port);
    await database.stop();

    // Dead: PostgreSQL removes the lock file itself.
    const exited = spawn('true');
    await new Promise((resolve) => exited.once('exit', resolve));
    writeFileSync(join(databaseDir, 'postmaster.pid'), lockText.replace(/^\d+/, String(exited.pid)));
    database = await startEmbeddedPostgres({ dataDir, port, logger: capturingLogger().logger });
    await database.stop();

    // Reused by a process of the server's own user (after a reboot): PostgreSQL alone would refuse.
    const owner = statSync(databaseDir);
    const stranger = spawn('cat', [], {
      stdio: ['pipe', 'ignore', 'ignore'],
      uid: owner.uid,
      gid: owner.gid,
    });
    children.push(stranger);
    writeFileSync(join(databaseDir, 'postmaster.pid'), lockText.replace(/^\d+/, String(stranger.pid)));
    const { logger, lines } = capturingLogger();
    database = await startEmbeddedPostgres({ dataDir, port, logger });
    databases.push(database);
    expect(lines.filter((l) => l.pid === stranger.pid).map((l) => l.msg)).toEqual([
      'embedded postgres: its lock file names a pid now used by another process: removing the stale lock file',
    ]);
    expect(alive(stranger.pid!)).toBe(true);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.end();
  });
});
