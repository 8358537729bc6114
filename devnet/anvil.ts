/**
 * Starts a local anvil chain by spawning the binary of this platform's @foundry-rs/anvil build
 * directly (devnet/anvilBinary.ts).
 * The child is killed when this process exits; where `setpriv` exists (util-linux), the kernel also
 * kills it if this process dies without running its exit handlers (SIGKILL, crash).
 * With a state file, the state is loaded at start and saved by this process (devnet/stateFile.ts:
 * atomically, on an interval and on stop), never by anvil's in-place `--state` writes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { anvilBinaryPath } from './anvilBinary.js';
import { keepOwnGenesis, removeLeftovers, saveState } from './stateFile.js';

export type AnvilOptions = {
  port: number;
  chainId: number;
  /** Seconds between blocks; omitted = automine (a block per transaction). */
  blockTime?: number;
  /** How long to wait for the first `eth_chainId` answer. Default 15 s. */
  readyTimeoutMs?: number;
  /** Loaded at start when the file exists (`--load-state`); saved every `stateIntervalMs` and on stop. */
  stateFile?: string;
  stateIntervalMs?: number;
  /** Told after each save of the state (an error when it failed: the previous file stays). */
  onStateSaved?(error?: Error): void;
};

export type Anvil = { rpcUrl: string; port: number; pid: number; stop(): Promise<void> };

const HOST = '127.0.0.1';
const SETPRIV = '/usr/bin/setpriv';

/** Whether something accepts a TCP connection on 127.0.0.1:`port`. */
export function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: HOST, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function rpcChainId(rpcUrl: string): Promise<number | null> {
  try {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1000),
    });
    const body = (await res.json()) as { result?: string };
    return typeof body.result === 'string' ? Number.parseInt(body.result, 16) : null;
  } catch {
    return null;
  }
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

export async function startAnvil(options: AnvilOptions): Promise<Anvil> {
  const { port, chainId, blockTime, readyTimeoutMs = 15_000 } = options;
  if (await portAnswers(port)) throw new Error(`anvil: port ${HOST}:${port} is already in use`);

  const args = ['--host', HOST, '--port', String(port), '--chain-id', String(chainId), '--silent'];
  if (blockTime !== undefined) args.push('--block-time', String(blockTime));
  const { stateFile } = options;
  if (stateFile !== undefined) {
    await removeLeftovers(stateFile);
    if (existsSync(stateFile)) {
      await keepOwnGenesis(stateFile);
      args.push('--load-state', stateFile);
    }
  }
  const binary = anvilBinaryPath();
  // setpriv execs anvil in place (same pid) with PR_SET_PDEATHSIG, so it dies with this process.
  const [command, argv] = existsSync(SETPRIV)
    ? [SETPRIV, ['--pdeathsig', 'SIGKILL', '--', binary, ...args]]
    : [binary, args];
  const child = spawn(command, argv, { stdio: ['ignore', 'ignore', 'pipe'] });

  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const killOnExit = () => {
    child.kill('SIGKILL');
  };
  process.on('exit', killOnExit);

  let exited = false;
  child.once('exit', () => {
    exited = true;
    process.off('exit', killOnExit);
  });
  let spawnFailure: Error | null = null;
  child.once('error', (error) => {
    spawnFailure = error;
    process.off('exit', killOnExit);
  });

  const rpcUrl = `http://${HOST}:${port}`;
  // One save at a time: a tick that finds the previous save still running skips.
  let saving: Promise<void> | null = null;
  const save = (): Promise<void> => {
    if (stateFile === undefined || exited) return Promise.resolve();
    saving ??= saveState(rpcUrl, stateFile)
      .then(
        () => options.onStateSaved?.(),
        (error: unknown) => options.onStateSaved?.(error instanceof Error ? error : new Error(String(error))),
      )
      .finally(() => {
        saving = null;
      });
    return saving;
  };
  let saver: NodeJS.Timeout | undefined;
  let ready = false;
  const stop = async (): Promise<void> => {
    clearInterval(saver);
    if (exited) return;
    // The last state, saved while the chain still answers (only a chain that started as ours: one
    // that answered another chain id must not overwrite the file); then the process ends.
    if (ready) {
      await saving;
      await save();
    }
    child.kill('SIGTERM');
    if (!(await waitForExit(child, 3000))) {
      child.kill('SIGKILL');
      await waitForExit(child, 3000);
    }
    process.off('exit', killOnExit);
  };

  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (spawnFailure)
      throw new Error(`anvil: failed to start ${command}: ${(spawnFailure as Error).message}`);
    if (exited)
      throw new Error(`anvil exited before answering on ${rpcUrl}: ${stderr.trim() || 'no output'}`);
    const answered = await rpcChainId(rpcUrl);
    if (answered !== null && !exited) {
      if (answered !== chainId) {
        await stop();
        throw new Error(`anvil on ${rpcUrl} answered chain id ${answered}, expected ${chainId}`);
      }
      ready = true;
      if (stateFile !== undefined && options.stateIntervalMs !== undefined) {
        saver = setInterval(() => void save(), options.stateIntervalMs);
        saver.unref();
        child.once('exit', () => clearInterval(saver));
      }
      return { rpcUrl, port, pid: child.pid ?? -1, stop };
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `anvil did not answer eth_chainId on ${rpcUrl} within ${readyTimeoutMs} ms: ${stderr.trim()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
