/**
 * The embedded PostgreSQL (store/embedded.ts) outliving the process that started it: the package spawns
 * the postmaster as a plain child, so a gateway killed with -9 leaves it running with parent 1, and the
 * next start on the same data directory failed ("lock file postmaster.pid already exists"). Two guards:
 *
 * - after a start, a watcher (`sh`, reading a pipe from this process) sends the postmaster SIGINT
 *   (PostgreSQL's fast shutdown) when this process dies without stopping it: the kernel closes the pipe,
 *   whatever killed us;
 * - before a start, a postmaster still running on our data directory whose starter is gone (the watcher
 *   was defeated, or its shutdown is still under way) is stopped the same way, and a lock file naming a
 *   pid reused by an unrelated process is removed. No other process is ever signalled.
 *
 * Process facts come from Linux's /proc; where it is missing nothing is signalled or removed, and
 * PostgreSQL's own lock-file check decides.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, realpathSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Logger } from '../lib/logger.js';
import { alive, argsOf, childrenOf, cwdOf, gone, parentOf } from '../lib/processes.js';

/** A fast shutdown ends the sessions and writes a checkpoint: seconds at most, even on a busy box. */
const STOP_GRACE_MS = 30_000;
function samePath(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return a === b;
  }
}

/** A postgres server started on `dir` (`postgres -D <dir>`, as the package starts it). */
function isServerOn(args: string[], dir: string): boolean {
  if (basename(args[0] ?? '') !== 'postgres') return false;
  const i = args.indexOf('-D');
  const given = i >= 0 ? args[i + 1] : args.find((a) => a.startsWith('--pgdata='))?.slice('--pgdata='.length);
  return given !== undefined && samePath(given, dir);
}

/**
 * A live process that may still own the server: the gateway (and every script of ours) is node, while an
 * orphan is adopted by init or a service manager.
 */
function isLiveStarter(pid: number): boolean {
  return alive(pid) && /^node/.test(basename(argsOf(pid)?.[0] ?? ''));
}

/** postmaster.pid: line 1 the pid, 2 the data directory, 4 the port (PostgreSQL's miscinit.c). */
function readLock(databaseDir: string): { text: string; pid: number; dir: string; port: string } | null {
  let text: string;
  try {
    text = readFileSync(join(databaseDir, 'postmaster.pid'), 'utf8');
  } catch {
    return null;
  }
  const [pid = '', dir = '', , port = ''] = text.split('\n');
  const n = Number(pid);
  return Number.isInteger(n) && n > 0 ? { text, pid: n, dir, port } : null;
}

/** Removes the lock file if it still says what was read (a server starting meanwhile wrote its own). */
function removeLock(databaseDir: string, text: string): void {
  const file = join(databaseDir, 'postmaster.pid');
  try {
    if (readFileSync(file, 'utf8') === text) rmSync(file, { force: true });
  } catch {
    // Already gone.
  }
}

/**
 * Stops a postmaster left running on `databaseDir` by a process that is gone, before ours starts there.
 * A lock file whose pid is dead is left alone: PostgreSQL removes it itself (kill(pid, 0) failing with
 * ESRCH, or EPERM: another user's). A pid that lives on in an unrelated process of the server's own user
 * (reused after a reboot) would make PostgreSQL refuse to start: that lock file is removed, the process
 * left alone (the shared-memory interlock of PostgreSQL still guards the data directory).
 * `graceMs`: how long the fast shutdown may take before the server is killed.
 */
export async function stopStalePostmaster(
  databaseDir: string,
  logger: Logger,
  graceMs = STOP_GRACE_MS,
): Promise<void> {
  const lock = readLock(databaseDir);
  if (!lock || !alive(lock.pid)) return;
  const args = argsOf(lock.pid);
  if (args === null) return; // No /proc: PostgreSQL's check decides.
  if (isServerOn(args, databaseDir) && samePath(lock.dir, databaseDir)) {
    const parent = parentOf(lock.pid);
    // Its starter still runs (another gateway on this data directory, or our own server restarted
    // before it exited): PostgreSQL refuses the second server, as it should.
    if (parent !== null && isLiveStarter(parent)) return;
    logger.info(
      { pid: lock.pid, port: Number(lock.port), databaseDir },
      'embedded postgres left running by a process that is gone: stopping it (fast shutdown) before starting',
    );
    await stopOrphan(lock.pid, databaseDir, lock.text, graceMs);
    return;
  }
  const cwd = cwdOf(lock.pid);
  if (cwd === null || samePath(cwd, databaseDir) || args.some((a) => a.includes(databaseDir))) return;
  logger.info(
    { pid: lock.pid, databaseDir },
    'embedded postgres: its lock file names a pid now used by another process: removing the stale lock file',
  );
  removeLock(databaseDir, lock.text);
}

async function stopOrphan(
  pid: number,
  databaseDir: string,
  lockText: string,
  graceMs: number,
): Promise<void> {
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return; // Gone meanwhile.
  }
  // A fast shutdown removes the lock file itself once the server is down.
  if (await gone([pid], graceMs)) return;
  // Last resort. Its backends end by themselves once it is gone (they watch for the postmaster's death);
  // the next server refuses to start while one still holds the shared memory, so they are waited for.
  const backends = childrenOf(pid);
  const args = argsOf(pid);
  try {
    if (args && isServerOn(args, databaseDir)) process.kill(pid, 'SIGKILL');
  } catch {
    // Gone meanwhile.
  }
  if (!(await gone([pid, ...backends], STOP_GRACE_MS)))
    throw new Error(`embedded postgres (pid ${pid}) left running on ${databaseDir} would not stop`);
  removeLock(databaseDir, lockText);
}

/**
 * Arms the watcher of postmaster `pid`. `disarm()` (an orderly stop, or the server exited) ends it
 * without a signal, so it never reaches a later process given the same pid. POSIX only.
 */
export function watchPostmaster(pid: number): { disarm(): void } {
  if (process.platform === 'win32') return { disarm() {} };
  const watcher: ChildProcess = spawn(
    'sh',
    ['-c', 'cat >/dev/null; kill -INT "$1" 2>/dev/null', 'pg-watch', String(pid)],
    // Its own process group: a terminal's Ctrl-C reaches the gateway, which stops the server in order,
    // and disarm() ends the shell and its `cat` together.
    { stdio: ['pipe', 'ignore', 'ignore'], detached: true },
  );
  // No shell: no watcher; the guard at the next start remains.
  watcher.on('error', () => {});
  watcher.stdin?.on('error', () => {});
  // Neither the watcher nor its pipe keeps this process alive.
  watcher.unref();
  (watcher.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  let armed = true;
  return {
    disarm() {
      if (!armed) return;
      armed = false;
      // Killed before its pipe closes: an end of input first would send the signal.
      if (watcher.pid !== undefined && watcher.exitCode === null && watcher.signalCode === null) {
        try {
          process.kill(-watcher.pid, 'SIGKILL');
        } catch {
          watcher.kill('SIGKILL');
        }
      }
      watcher.stdin?.destroy();
    },
  };
}
