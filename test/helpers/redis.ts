import { type ChildProcess, spawn } from 'node:child_process';
import { Redis } from 'ioredis';

/** A Redis server of the test's own: stopping it never touches the machine's shared one. */
export interface RedisServer {
  url: string;
  port: number;
  /** The redis-server process. */
  pid: number;
  /**
   * SIGSTOP: the process is frozen with its sockets open, so clients stay connected and every command
   * waits for an answer that does not come (a hung Redis, unlike a stopped one that refuses).
   */
  hang(): void;
  /** SIGCONT after `hang()`: the answers queued meanwhile arrive, then it serves again. */
  resume(): void;
  /** SIGTERM (after SIGCONT, if hung) and wait for the exit (no persistence: the data is gone). */
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function answers(url: string): Promise<boolean> {
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/** `redis-server` on 127.0.0.1:`port`, no RDB, no AOF, as a child of this process. */
export async function startRedisServer(port: number, timeoutMs = 10_000): Promise<RedisServer> {
  const url = `redis://127.0.0.1:${port}`;
  if (await answers(url)) throw new Error(`redis: port ${port} is already in use`);
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  const kill = () => child.kill('SIGKILL');
  process.on('exit', kill);
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = async () => {
    process.off('exit', kill);
    if (!running()) return;
    // A stopped process handles SIGTERM only once continued.
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    await exited(child);
  };
  const deadline = Date.now() + timeoutMs;
  while (!(await answers(url))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`redis-server on ${port} did not answer: ${stderr.trim() || 'no output'}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const signal = (name: 'SIGSTOP' | 'SIGCONT') => {
    if (!running()) throw new Error(`redis-server on ${port} is not running`);
    child.kill(name);
  };
  return {
    url,
    port,
    pid: child.pid!,
    hang: () => signal('SIGSTOP'),
    resume: () => signal('SIGCONT'),
    stop,
  };
}
