/**
 * A webhook host's addresses, from the system resolver (getaddrinfo: the hosts file, search domains),
 * which runs on libuv's threadpool: four threads that gzip, file reads and crypto share with it. A
 * receiver whose DNS never answers holds a thread until the resolver gives up (seconds per server and
 * try), and a few such hosts would stall every compressed answer of the service. So at most
 * LOOKUPS_AT_ONCE lookups run at a time, and a caller waits at most its deadline, queue included, before
 * the host counts as not resolving. A lookup past its caller's deadline keeps its slot until it returns:
 * the threads held stay bounded.
 */
import { lookup } from 'node:dns/promises';

/** Half of libuv's default pool of four: the other half is always free for everything else. */
export const LOOKUPS_AT_ONCE = 2;

export interface HostAddress {
  address: string;
  family: number;
}

export type Resolve = (host: string) => Promise<HostAddress[]>;

/** The host did not resolve within the caller's deadline. */
export class LookupTimeout extends Error {
  constructor(
    readonly host: string,
    readonly deadlineMs: number,
  ) {
    super(`the host ${host} did not resolve within ${deadlineMs} ms`);
  }
}

export interface HostLookup {
  (host: string, deadlineMs: number): Promise<HostAddress[]>;
  /** Lookups running now (holding a slot), for tests and metrics. */
  running(): number;
}

export function createHostLookup(resolve: Resolve, atOnce = LOOKUPS_AT_ONCE): HostLookup {
  let running = 0;
  const waiting: Array<() => void> = [];

  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };

  const hostLookup = (host: string, deadlineMs: number): Promise<HostAddress[]> =>
    new Promise<HostAddress[]>((resolveAnswer, reject) => {
      let done = false;
      const timer = setTimeout(() => {
        done = true;
        const queued = waiting.indexOf(start);
        if (queued >= 0) waiting.splice(queued, 1);
        reject(new LookupTimeout(host, deadlineMs));
      }, deadlineMs);
      // Runs holding a slot (taken by the caller of start): the slot goes back when the lookup returns.
      function start() {
        if (done) {
          release();
          return;
        }
        resolve(host).then(
          (addresses) => {
            release();
            if (done) return;
            done = true;
            clearTimeout(timer);
            resolveAnswer(addresses);
          },
          (error: unknown) => {
            release();
            if (done) return;
            done = true;
            clearTimeout(timer);
            reject(error);
          },
        );
      }
      if (running < atOnce) {
        running += 1;
        start();
      } else waiting.push(start);
    });
  return Object.assign(hostLookup, { running: () => running });
}

/** The process's lookups of webhook hosts, by the system resolver. */
export const lookupHost = createHostLookup((host) => lookup(host, { all: true, verbatim: true }));
