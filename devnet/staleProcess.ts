/**
 * A devnet left running by a gateway that died (kill -9) still holds the chains' ports until it has
 * noticed (its stdin closes) and stopped: the next start on the same DATA_DIR would find them taken.
 * The devnet records its pid beside its state; a new one stops the previous one first (SIGTERM: it
 * saves its chains' state and stops them), waiting for it to go, and never signals a process that is
 * not a devnet of this checkout.
 */
import { readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { argsOf, stopProcess } from '../lib/processes.js';

export function pidFileOf(dataDir: string): string {
  return path.resolve(dataDir, 'devnet', 'devnet.pid');
}

/**
 * Stops the devnet named by `pidFile` when it still runs (a process whose command line runs
 * devnet/main.ts: the pid file, under this DATA_DIR, ties it to this data directory), then records
 * this process in it, cleared when this process ends.
 */
export async function takeOverDevnet(pidFile: string, logger: Logger): Promise<void> {
  let pid = Number.NaN;
  try {
    pid = Number.parseInt(readFileSync(pidFile, 'utf8'), 10);
  } catch {
    // No previous devnet recorded.
  }
  if (
    Number.isInteger(pid) &&
    pid > 0 &&
    pid !== process.pid &&
    argsOf(pid)?.some((arg) => arg.endsWith('devnet/main.ts'))
  ) {
    logger.warn({ pid }, 'a previous devnet still runs on this data directory: stopping it first');
    // Its stop saves each chain's state (a few seconds at most); past that it is killed, and its
    // anvils die with it (devnet/anvil.ts).
    await stopProcess(pid, 'SIGTERM', 20_000);
  }
  await writeFile(pidFile, `${process.pid}\n`);
  process.once('exit', () => {
    try {
      if (readFileSync(pidFile, 'utf8').trim() === String(process.pid)) rmSync(pidFile, { force: true });
    } catch {
      // Already gone.
    }
  });
}
