import pino from 'pino';
import { BatchedLines, type HeldLine } from './logDestination.js';
import type { Logger } from './logger.js';

/**
 * What one access-log line says: never headers, keys, query strings or bodies. The writer may keep the
 * object until its batch is written (up to 100 ms): pass a fresh one per line and do not change it.
 */
export interface AccessFields {
  method: string;
  /** The route pattern (`/v1/positions/:positionId`) or `unmatched`, never the raw URL. */
  route: string;
  status: number;
  durationMs: number;
  requestId?: string;
  bucket?: string;
}

/** pino's info level, the one access lines are written at, and debug, the probes' level. */
const INFO = 30;
const DEBUG = 20;
/**
 * The routes an orchestrator or load balancer polls every few seconds: their lines are written at debug,
 * so a poll neither fills a collector nor scrolls a terminal (on a TTY a pretty line per poll pushed
 * the start banner away). Matched on the route pattern, never the raw URL.
 */
const PROBE_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/livez']);
/**
 * About how many characters an access line takes (what a held line counts towards its batch): with
 * pid, hostname, name and a UUID request id, 250-270.
 */
const TYPICAL_CHARS = 256;

/**
 * Writes access-log lines to `logger`'s destination as pino would write
 * `logger.info({ method, route, status, durationMs, requestId, bucket }, 'request')`: the same JSON line
 * (level, time, the logger's bindings, the fields in that order, msg), at info, when info is enabled;
 * the health probes' lines (`PROBE_ROUTES`) as `logger.debug` would, when debug is enabled.
 *
 * Built here because the line is the one log line per request and its fields are fixed: pino's generic
 * path (a child without the redaction pass, then `asJson` walking the object and choosing a stringifier
 * per value) cost about five times one template string, a visible share of a cached read
 * (bench/extras.ts). No field can hold a secret, so no redaction is skipped that matters:
 * the strings are JSON-escaped (a client's X-Request-Id may hold quotes), numbers are finite.
 *
 * On the service's own destination (lib/logDestination.ts, batched) the request only holds its fields
 * and the time: the text is built with the rest of its batch, up to 100 ms later, in order with the
 * other lines. A request arriving alone used to build its line with every piece of that code out of
 * the CPU's caches, a visible share of a cached read at a paced rate (bench/extras.ts).
 */
export function accessLogWriter(logger: Logger): (fields: AccessFields) => void {
  const record = logger as unknown as Record<symbol, unknown>;
  const stream = record[pino.symbols.streamSym] as pino.DestinationStream;
  const bindings = String(record[pino.symbols.chindingsSym] ?? '');
  const infoHead = `{"level":${INFO},"time":`;
  const debugHead = `{"level":${DEBUG},"time":`;
  const levelOf = (f: AccessFields): number => (PROBE_ROUTES.has(f.route) ? DEBUG : INFO);
  const text = (time: number, f: AccessFields): string => {
    const head = levelOf(f) === DEBUG ? debugHead : infoHead;
    const id = f.requestId === undefined ? '' : `,"requestId":${JSON.stringify(f.requestId)}`;
    const bucket = f.bucket === undefined ? '' : `,"bucket":${JSON.stringify(f.bucket)}`;
    return `${head}${time}${bindings},"method":${JSON.stringify(f.method)},"route":${JSON.stringify(f.route)},"status":${f.status},"durationMs":${Number.isFinite(f.durationMs) ? f.durationMs : null}${id}${bucket},"msg":"request"}\n`;
  };
  if (stream instanceof BatchedLines) {
    class AccessLine implements HeldLine {
      constructor(
        private readonly time: number,
        private readonly fields: AccessFields,
      ) {}
      toString(): string {
        return text(this.time, this.fields);
      }
    }
    return (f) => {
      if (logger.levelVal > levelOf(f)) return;
      stream.hold(new AccessLine(Date.now(), f), TYPICAL_CHARS);
    };
  }
  return (f) => {
    if (logger.levelVal > levelOf(f)) return;
    stream.write(text(Date.now(), f));
  };
}
