import { type ChildProcess, spawn } from 'node:child_process';
import { resolve as resolvePath } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { readChainsFile } from '../lib/chains.js';
import type { Logger } from '../lib/logger.js';
import { type PartStatus, supervise } from '../lib/supervisor.js';
import type { Devnet } from './devnet.js';

export interface SpawnDevnetOptions {
  basePort: number;
  dataDir: string;
  activityMs: number;
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** How long to wait for the ready line. Default 60 s. */
  readyTimeoutMs?: number;
  /** How long `stop()` waits after SIGTERM before SIGKILL. Default 10 s. */
  stopTimeoutMs?: number;
  /** Where the steps of the devnet's start and restarts of its process are logged. Default: nowhere. */
  logger?: Logger;
}

/** One run of the child: the devnet it reported, and when it ends. */
interface DevnetRun extends Devnet {
  exited: Promise<string>;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

/**
 * Runs the devnet (`devnet/main.ts`) as a child process, so the devnet wallets and their signing live
 * in a program separate from the service. Resolves once the child printed its ready line; the chains
 * come from the manifest it wrote. The child stops on SIGTERM (`stop()`) and also when its stdin
 * closes, which happens when this process dies: a crashed parent never leaves anvils behind.
 *
 * Supervised: a child that dies is started again (lib/supervisor.ts), which brings up its chains on
 * the same ports, deployed and seeded as before (the same addresses); inside it, each anvil is
 * supervised too (devnet/devnet.ts) and reported here. `parts()` lists what is not up.
 */
export async function spawnDevnet(options: SpawnDevnetOptions): Promise<Devnet> {
  const logger = options.logger ?? pino({ level: 'silent' });
  const anvils = new Map<string, PartStatus>();
  logger.info(
    { component: 'devnet', ports: [options.basePort, options.basePort + 1, options.basePort + 2] },
    'devnet starting',
  );
  let firstRun: DevnetRun | undefined;
  const supervisor = await supervise<DevnetRun>({
    name: 'devnet',
    logger,
    start: async () => {
      anvils.clear();
      const run = await spawnDevnetRun(options, logger, (status) => anvils.set(status.name, status));
      // The service keeps the chains of the first run: a devnet seeded elsewhere would not be them.
      if (firstRun && JSON.stringify(run.chains) !== JSON.stringify(firstRun.chains))
        logger.error(
          { manifestPath: run.manifestPath },
          'devnet came back with other chains: restart the service',
        );
      firstRun ??= run;
      return run;
    },
    exited: (run) => run.exited,
    stop: (run) => run.stop(),
    // A start deploys and seeds three chains (seconds): no point in trying again within a second.
    initialDelayMs: 1_000,
  });
  const first = supervisor.current()!;
  return {
    chains: first.chains,
    manifestPath: first.manifestPath,
    // While the process is down its anvils are down with it: the process alone names that.
    parts: () => {
      const own = supervisor.status();
      return own.state === 'up' ? [own, ...anvils.values()] : [own];
    },
    stop: () => supervisor.stop(),
  };
}

function spawnDevnetRun(
  options: SpawnDevnetOptions,
  logger: Logger,
  onPart: (status: PartStatus) => void,
): Promise<DevnetRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    cwd: ROOT,
    env: {
      ...process.env,
      DEVNET_PORT: String(options.basePort),
      // Absolute: the child runs in the project root, which need not be this process's cwd.
      DATA_DIR: resolvePath(options.dataDir),
      DEVNET_ACTIVITY_MS: String(options.activityMs),
      ...(options.logLevel === undefined ? {} : { LOG_LEVEL: options.logLevel }),
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<string>((resolve) => {
    const done = (code: number | null, signal: NodeJS.Signals | null) =>
      resolve(`devnet process exited (code ${code ?? 'none'}, signal ${signal ?? 'none'})`);
    if (child.exitCode !== null || child.signalCode !== null) done(child.exitCode, child.signalCode);
    else child.once('exit', done);
  });
  const stopTimeoutMs = options.stopTimeoutMs ?? 10_000;

  return new Promise<DevnetRun>((resolve, reject) => {
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void terminate(child, exited, stopTimeoutMs).finally(() => reject(error));
    };
    const timer = setTimeout(
      () => fail(new Error(`devnet did not report ready within ${options.readyTimeoutMs ?? 60_000} ms`)),
      options.readyTimeoutMs ?? 60_000,
    );
    child.once('error', (error) => fail(error));
    child.once('exit', (code, signal) => {
      fail(new Error(`devnet exited before ready (code ${code ?? 'none'}, signal ${signal ?? 'none'})`));
    });
    // EPIPE on a dead child's stdin is reported by the exit handler; nothing to add here.
    child.stdin?.on('error', () => {});

    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        return;
      }
      if (isProgress(message)) {
        // A step of the child's start (devnet/main.ts), logged here so the service's start is never
        // seconds of silence while its chains are deployed and seeded.
        const { msg, ...fields } = message.progress;
        return logger.info({ ...fields, component: 'devnet' }, msg);
      }
      if (isPart(message)) {
        const { since, downSince, ...rest } = message.part;
        return onPart({
          ...rest,
          since: new Date(since),
          ...(downSince ? { downSince: new Date(downSince) } : {}),
        });
      }
      if (settled || !isReady(message)) return;
      settled = true;
      clearTimeout(timer);
      let chains: Devnet['chains'];
      try {
        chains = readChainsFile(message.manifestPath);
      } catch (error) {
        void terminate(child, exited, stopTimeoutMs).finally(() => reject(error));
        return;
      }
      // Do not keep the parent alive for the child's sake: when the parent exits, the pipe closes and
      // the child stops itself.
      child.unref();
      unref(child.stdin);
      unref(child.stdout);
      let stopping: Promise<void> | undefined;
      resolve({
        chains,
        manifestPath: message.manifestPath,
        exited,
        stop: () => {
          stopping ??= terminate(child, exited, stopTimeoutMs);
          return stopping;
        },
      });
    });
  });
}

function isReady(message: unknown): message is { ready: true; manifestPath: string } {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as Record<string, unknown>;
  return m.ready === true && typeof m.manifestPath === 'string';
}

function isProgress(message: unknown): message is { progress: { msg: string } & Record<string, unknown> } {
  if (typeof message !== 'object' || message === null) return false;
  const progress = (message as Record<string, unknown>).progress as Record<string, unknown> | undefined;
  return typeof progress === 'object' && progress !== null && typeof progress.msg === 'string';
}

function isPart(message: unknown): message is {
  part: Omit<PartStatus, 'since' | 'downSince'> & { since: string; downSince?: string };
} {
  if (typeof message !== 'object' || message === null) return false;
  const part = (message as Record<string, unknown>).part as Record<string, unknown> | undefined;
  return typeof part?.name === 'string' && typeof part.state === 'string' && typeof part.since === 'string';
}

function unref(stream: unknown): void {
  const s = stream as { unref?: () => void } | null;
  s?.unref?.();
}

async function terminate(child: ChildProcess, exited: Promise<string>, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const result = await Promise.race([exited, timedOut]);
  clearTimeout(timer);
  if (result === 'timeout') {
    child.kill('SIGKILL');
    await exited;
  }
}
