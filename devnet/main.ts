import { fstatSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../lib/config.js';
import { type Devnet, startDevnet } from './devnet.js';
import { pidFileOf, takeOverDevnet } from './staleProcess.js';

/**
 * `npm run devnet`: the three local chains, seeded, with the activity bot. Prints one JSON line
 * `{"progress":{"msg":…,…}}` on stdout per step of the start (each chain started, deployed, its makers
 * seeded n/N, …), `{"ready":true,"manifestPath":…}` when ready, then `{"part":…}` when an anvil's
 * supervision state changes (lib/supervisor.ts); logs go to stderr. The parent (devnet/process.ts)
 * logs the progress lines, so the gateway's start says what its devnet is doing while it seeds. Stops on SIGTERM, SIGINT
 * and, when stdin is a pipe (a parent process holds it), when stdin closes.
 */
const config = loadConfig();
const logger = pino({ name: 'devnet', level: config.logLevel }, pino.destination(2));

let stopping = false;

await mkdir(path.resolve(config.dataDir, 'devnet'), { recursive: true });
await takeOverDevnet(pidFileOf(config.dataDir), logger);

const starting: Promise<Devnet | undefined> = startDevnet({
  basePort: config.devnetPort,
  dataDir: config.dataDir,
  activityMs: config.devnetActivityMs,
  logger,
  // Each anvil's supervision state, for the parent's readiness: one JSON line `{"part":…}` per change.
  onPartState: (status) => {
    if (!stopping) process.stdout.write(`${JSON.stringify({ part: status })}\n`);
  },
  // Each step of the start, for the parent to log (it logs at its own level; this process's is warn).
  onProgress: (msg, fields) => {
    if (!stopping) process.stdout.write(`${JSON.stringify({ progress: { ...fields, msg } })}\n`);
  },
}).catch((error: unknown) => {
  logger.error({ err: error }, 'devnet failed to start');
  return undefined;
});

async function shutdown(reason: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ reason }, 'devnet stopping');
  // A signal during start waits for the start to finish, so no anvil is left behind.
  const devnet = await starting;
  let code = 0;
  try {
    await devnet?.stop();
  } catch (error) {
    logger.error({ err: error }, 'devnet stop failed');
    code = 1;
  }
  process.exit(code);
}

process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));

if (stdinIsPipe()) {
  process.stdin.on('data', () => {});
  process.stdin.once('end', () => void shutdown('stdin closed'));
  process.stdin.once('close', () => void shutdown('stdin closed'));
  process.stdin.resume();
}

const devnet = await starting;
if (!devnet) process.exit(1);
if (!stopping) {
  process.stdout.write(`${JSON.stringify({ ready: true, manifestPath: devnet.manifestPath })}\n`);
}

/** A pipe or socket: somebody holds the other end. A TTY or /dev/null never "closes" meaningfully. */
function stdinIsPipe(): boolean {
  try {
    const stat = fstatSync(0);
    return stat.isFIFO() || stat.isSocket();
  } catch {
    return false;
  }
}
