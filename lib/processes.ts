/**
 * Other processes this one may have to stop: a devnet or an embedded PostgreSQL left running on our
 * data directory by a gateway that was killed (kill -9). Linux (/proc) facts; elsewhere a process's
 * command line reads as unknown and nothing is signalled.
 */
import { readFileSync } from 'node:fs';

/** Whether a process with this pid exists (EPERM: it does, under another user). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The process's command line, its arguments joined by spaces; null when it is gone or unreadable. */
export function commandLine(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return null;
  }
}

/** Resolves true once `pid` is gone, false after `timeoutMs`. */
export async function gone(pid: number, timeoutMs: number): Promise<boolean> {
  const end = performance.now() + timeoutMs;
  while (alive(pid)) {
    if (performance.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
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
