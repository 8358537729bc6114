/**
 * Other processes this one may have to stop or wait for: a devnet or an embedded PostgreSQL left running
 * on our data directory by a gateway that was killed (kill -9). Linux (/proc) facts; where /proc is
 * missing a process's arguments read as unknown (null) and callers signal nothing.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** How often a wait for a process that is not our child looks again (Linux gives no event for it). */
const POLL_MS = 25;

/** The fields of /proc/<pid>/stat from the state on (the name before them may hold spaces); null when gone. */
export function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * Whether a process with this pid exists (EPERM: it does, under another user) and is not a zombie (dead,
 * not yet reaped by whoever adopted it, which answers kill(pid, 0) too).
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return statFields(pid)?.[0] !== 'Z';
}

/** The process's arguments; null when it is gone or /proc is unreadable. */
export function argsOf(pid: number): string[] | null {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (args.at(-1) === '') args.pop();
    return args;
  } catch {
    return null;
  }
}

export function parentOf(pid: number): number | null {
  const ppid = Number(statFields(pid)?.[1]);
  return Number.isInteger(ppid) ? ppid : null;
}

export function childrenOf(pid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries.filter((e) => /^\d+$/.test(e) && parentOf(Number(e)) === pid).map(Number);
}

/** The process's working directory; null when it is gone or unreadable. */
export function cwdOf(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

/** Resolves true once every pid is gone, false after `timeoutMs`. */
export async function gone(pids: number | readonly number[], timeoutMs: number): Promise<boolean> {
  const all = typeof pids === 'number' ? [pids] : pids;
  const end = performance.now() + timeoutMs;
  for (;;) {
    if (!all.some(alive)) return true;
    if (performance.now() > end) return false;
    await sleep(POLL_MS);
  }
}

/** Sends `signal`, waits up to `timeoutMs` for the process to go, then SIGKILL; true when it went. */
export async function stopProcess(pid: number, signal: NodeJS.Signals, timeoutMs: number): Promise<boolean> {
  try {
    process.kill(pid, signal);
  } catch {
    return !alive(pid);
  }
  if (await gone(pid, timeoutMs)) return true;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone meanwhile.
  }
  return gone(pid, 5_000);
}
