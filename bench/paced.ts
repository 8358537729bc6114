/**
 * An open-loop, evenly paced GET load for latency at a given rate: request i is due at
 * start + i/rate, and its latency counts from that due time, so time spent waiting for a free
 * connection is latency too (no coordinated omission). autocannon's `overallRate` cannot stand in for
 * it: each connection fires its per-second quota back to back at the top of every second.
 *
 * The client speaks HTTP/1.1 on raw keep-alive sockets and reads only the status line and
 * Content-Length: node's own http client spends ~0.1 ms of CPU per 16 KB response, on the same two
 * cores as the server, and its lateness showed as a p99 of 7-10 ms against a hello-world server.
 *
 * `pacedApart` runs it in a fresh process of its own: in the process that had just run autocannon, the
 * client's own garbage collections and leftover work delayed its sends, and that lateness counted as
 * the server's latency (p99 13-15 ms against a hello-world server at a third of its peak).
 */
import net from 'node:net';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { LoadResult } from './lib.js';
import { ownCpuMsSince } from './measure.js';
import { runApart } from './processes.js';

const CRLF2 = Buffer.from('\r\n\r\n');

interface Connection {
  socket: net.Socket;
  busy: boolean;
  /** Due time of the request in flight. */
  due: number;
  status: number;
  /** Bytes of the response still to read (-1: reading the head). */
  remaining: number;
  head: Buffer;
}

export async function paced(
  name: string,
  url: string,
  paths: string[],
  rate: number,
  seconds: number,
  connections = 20,
  options: { distinctClients?: boolean; headers?: Record<string, string> } = {},
): Promise<LoadResult> {
  const cpu = process.cpuUsage();
  const { hostname, port } = new URL(url);
  const extra = Object.entries(options.headers ?? {})
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const requests = paths.map((path) =>
    Buffer.from(
      `GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: keep-alive\r\n${extra}\r\n`,
    ),
  );
  // With distinctClients every request names a client of its own (X-Forwarded-For, for a server with
  // TRUST_PROXY=1), so no per-client bucket refuses a long run.
  const requestOf = (i: number): Buffer => {
    const request = requests[i % requests.length]!;
    if (!options.distinctClients) return request;
    const client = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    return Buffer.concat([
      request.subarray(0, request.length - 2),
      Buffer.from(`X-Forwarded-For: ${client}\r\n\r\n`),
    ]);
  };
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  const total = Math.round(rate * seconds);
  let sent = 0;
  let done = 0;
  const start = performance.now();
  const dueOf = (i: number) => start + (i * 1000) / rate;

  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const complete = (c: Connection, ok: boolean) => {
    if (ok) {
      latencies.push(performance.now() - c.due);
      if (c.status < 200 || c.status > 299) non2xx++;
    } else errors++;
    c.busy = false;
    done++;
    if (done === total) finish();
    else pump();
  };

  const pool: Connection[] = [];
  let ended = false;
  // A connection the server closed while idle (its keep-alive timeout) is opened again at once, as an
  // HTTP client's pool would, so the next request does not meet a closed socket.
  const open = (c: Connection) => {
    const socket = net.connect(Number(port), hostname);
    socket.setNoDelay(true);
    c.socket = socket;
    let connected = false;
    socket.once('connect', () => {
      connected = true;
    });
    c.remaining = -1;
    c.head = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      let data = chunk;
      while (data.length > 0 && c.busy) {
        if (c.remaining < 0) {
          c.head = c.head.length === 0 ? data : Buffer.concat([c.head, data]);
          const end = c.head.indexOf(CRLF2);
          if (end < 0) return;
          const head = c.head.subarray(0, end).toString('latin1');
          c.status = Number(head.slice(9, 12));
          const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
          c.remaining = length ? Number(length[1]) : 0;
          data = c.head.subarray(end + 4);
          c.head = Buffer.alloc(0);
        }
        const take = Math.min(c.remaining, data.length);
        c.remaining -= take;
        data = data.subarray(take);
        if (c.remaining === 0) {
          c.remaining = -1;
          complete(c, true);
        }
      }
    });
    socket.on('error', () => {
      if (c.busy) complete(c, false);
    });
    // A socket the server closed under a request in flight ends that request as an error.
    socket.on('close', () => {
      if (c.busy) complete(c, false);
      // Only a socket that was up is reopened: a refused connect would otherwise retry in a tight loop.
      if (!ended && connected) open(c);
    });
  };
  for (let i = 0; i < connections; i++) {
    const c = { busy: false, due: 0, status: 0, remaining: -1, head: Buffer.alloc(0) } as Connection;
    open(c);
    pool.push(c);
  }
  await Promise.all(pool.map((c) => new Promise((resolve) => c.socket.once('connect', resolve))));

  // Sends every request that is due, on free connections; what finds none waits for one.
  function pump() {
    const now = performance.now();
    for (const c of pool) {
      if (sent >= total || dueOf(sent) > now) return;
      if (c.busy) continue;
      c.busy = true;
      c.due = dueOf(sent);
      c.remaining = -1;
      c.socket.write(requestOf(sent));
      sent++;
    }
  }
  // Requests still unanswered 10 s after the last one was due are counted as errors: a run ends.
  const deadline = dueOf(total) + 10_000;
  const timer = setInterval(() => {
    if (performance.now() > deadline) {
      errors += total - done;
      done = total;
      finish();
      return;
    }
    pump();
  }, 1);
  pump();
  await finished;
  clearInterval(timer);
  ended = true;
  for (const c of pool) c.socket.destroy();

  const elapsed = (performance.now() - start) / 1000;
  const sorted = latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    Number((sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0).toFixed(2));
  return {
    name,
    requestsPerSec: Math.round(sorted.length / elapsed),
    total: sorted.length,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: at(1),
    non2xx,
    errors,
    generatorCpuMs: Math.round(ownCpuMsSince(cpu)),
  };
}

/** What `pacedApart` hands its process (as JSON, the one argument). */
interface PacedRun {
  name: string;
  url: string;
  paths: string[];
  rate: number;
  seconds: number;
  distinctClients?: boolean;
  headers?: Record<string, string>;
  /** The process's CPU priority (nice value); unset, it inherits the caller's. */
  priority?: number;
}

/** `paced` in a fresh node process (nothing else in its heap or event loop); resolves its figures. */
export async function pacedApart(
  name: string,
  url: string,
  paths: string[],
  rate: number,
  seconds: number,
  options: { distinctClients?: boolean; headers?: Record<string, string>; priority?: number } = {},
): Promise<LoadResult> {
  const run: PacedRun = { name, url, paths, rate, seconds, ...options };
  return runApart<LoadResult>(fileURLToPath(import.meta.url), run, `paced load for ${name}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { name, url, paths, rate, seconds, distinctClients, headers, priority } = JSON.parse(
    process.argv[2]!,
  ) as PacedRun;
  if (priority !== undefined) {
    try {
      setPriority(priority);
    } catch (error) {
      // Raising a priority needs CAP_SYS_NICE: the run goes on at the inherited one, and says so.
      console.error(`paced: priority ${priority} refused (${String(error)}); running at the caller's`);
    }
  }
  process.stdout.write(
    JSON.stringify(
      await paced(name, url, paths, rate, seconds, 20, {
        distinctClients: distinctClients ?? false,
        headers,
      }),
    ),
  );
}
