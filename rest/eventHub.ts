import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import {
  CATALOGUE_EVENTS_CHANNEL,
  type CatalogueEvent,
  readCatalogueEventsAfter,
  readEventWindow,
} from '../store/catalogueEvents.js';
import type { Db } from '../store/db.js';
import { PgListener } from '../store/listen.js';

/**
 * The live stream of GET /api/events on one gateway process: ONE LISTEN connection (store/listen.ts)
 * and every open Server-Sent Events response of the process. A NOTIFY of the indexer makes the hub read
 * the new rows once and write them to every live stream. A stream resuming after an id
 * (`Last-Event-ID`) first reads what it missed from the table itself, then joins the live ones.
 *
 * Ids increase in commit order (indexer/catalogueEvents.ts), so `head` (the last id read) splits the
 * events exactly: everything up to it was written to the live streams, nothing after it was.
 */

/** The reconnection delay a client is told (`retry:`), in ms. */
export const RETRY_MS = 3_000;
/** Rows one read takes, live or catching up. */
const PAGE = 500;
/**
 * Bytes a stream may have queued and unsent: a client that reads slower than the events come is
 * ended, and resumes from its last id when it reconnects (nothing is lost, nothing is held for it).
 */
const MAX_QUEUED_BYTES = 1 << 20;
/** How long a stream opened before the hub's first read waits for it before a 503. */
const READY_WAIT_MS = 2_000;
/** Seconds a refused client is told to wait (Retry-After). */
const REFUSED_RETRY_SECONDS = 5;

export interface EventHubOptions {
  heartbeatMs: number;
  maxStreams: number;
  maxStreamsPerClient: number;
}

/** One SSE frame. `data` is one line of JSON. */
export function sseFrame(id: number, event: string, data: string): string {
  return `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;
}

class EventStream {
  /** The last event id this stream was given (or skipped to). */
  cursor = 0;
  /** Its head is written: from then on it may be written to (a ping before would send a head of its own). */
  started = false;
  /** Written by the hub's fan-out; false while catching up from the table. */
  live = false;
  closed = false;

  constructor(
    readonly res: ServerResponse,
    readonly client: string,
  ) {}

  write(text: string): boolean {
    if (this.closed) return false;
    if (this.res.writableLength > MAX_QUEUED_BYTES) {
      this.end();
      return false;
    }
    return this.res.write(text);
  }

  send(event: CatalogueEvent): boolean {
    if (event.id <= this.cursor) return true;
    this.cursor = event.id;
    return this.write(sseFrame(event.id, event.kind, event.data));
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.res.end();
  }
}

export class CatalogueEventHub {
  private readonly listener: PgListener;
  private readonly streams = new Set<EventStream>();
  private readonly perClient = new Map<string, number>();
  private head = 0;
  private ready = false;
  private closing = false;
  private reading = false;
  private readAgain = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly heartbeat: NodeJS.Timeout;
  /** Resolves once `head` is known (the first read after the LISTEN connection is up). */
  private readonly firstRead: Promise<void>;
  private markRead: () => void = () => {};
  /** Told when a chain was rewound (a `chain.rewound` event arrived): what this process cached of it may be gone. */
  onRewound: () => void = () => {};

  constructor(
    private readonly db: Db,
    databaseUrl: string,
    private readonly logger: Logger,
    private readonly options: EventHubOptions,
  ) {
    this.listener = new PgListener(
      databaseUrl,
      CATALOGUE_EVENTS_CHANNEL,
      // Connected (again): whatever was notified meanwhile is in the table after `head`.
      { notified: () => this.readNew(), connected: () => this.readNew() },
      logger,
    );
    this.firstRead = new Promise((resolve) => {
      this.markRead = resolve;
    });
    this.heartbeat = setInterval(() => {
      for (const stream of this.streams) if (stream.started) stream.write(': ping\n\n');
    }, options.heartbeatMs);
    this.heartbeat.unref();
  }

  start(): void {
    this.listener.start();
  }

  /** Open streams of this process (the gauge of lib/metrics.ts). */
  get size(): number {
    return this.streams.size;
  }

  /**
   * Serves one GET /api/events. Every refusal is an ApiError thrown before the head is written; after
   * it, the response is the stream, until the client leaves or the hub closes.
   */
  async open(
    req: IncomingMessage,
    res: ServerResponse,
    client: string,
    lastEventId: number | null,
  ): Promise<void> {
    // A process just started: its LISTEN connection is moments away.
    if (!this.ready && !this.closing) await Promise.race([this.firstRead, delay(READY_WAIT_MS)]);
    if (this.closing || !this.ready) {
      throw new ApiError(
        'UPSTREAM_UNAVAILABLE',
        'The event stream is not available on this server right now.',
        {
          retryAfter: 1,
        },
      );
    }
    if (this.streams.size >= this.options.maxStreams) {
      throw new ApiError('UPSTREAM_UNAVAILABLE', 'This server holds as many event streams as it allows.', {
        retryAfter: REFUSED_RETRY_SECONDS,
      });
    }
    const held = this.perClient.get(client) ?? 0;
    if (held >= this.options.maxStreamsPerClient) {
      throw new ApiError(
        'RATE_LIMITED',
        `At most ${this.options.maxStreamsPerClient} event streams may be open per client; close one first.`,
        { retryAfter: REFUSED_RETRY_SECONDS },
      );
    }
    // The slot is taken before the first await, so concurrent opens cannot pass the caps together.
    const stream = new EventStream(res, client);
    this.add(stream);
    res.once('close', () => this.remove(stream));
    let window: { prunedThrough: number; head: number } | null = null;
    try {
      if (lastEventId !== null) window = await readEventWindow(this.db);
    } catch (error) {
      this.remove(stream);
      throw error;
    }
    if (stream.closed) return; // the client left meanwhile
    if (this.closing) {
      this.remove(stream);
      throw new ApiError('UPSTREAM_UNAVAILABLE', 'This server is stopping; reconnect.', { retryAfter: 1 });
    }

    res.statusCode = 200; // node's ServerResponse: exact paths are served without express's prototype
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    // no-transform: no proxy (nor the compression middleware) may buffer or re-encode the stream.
    res.setHeader('Cache-Control', 'no-store, no-transform');
    res.setHeader('X-Accel-Buffering', 'no');
    req.socket.setNoDelay(true);
    if (req.method === 'HEAD') {
      stream.end();
      return;
    }
    res.flushHeaders();
    stream.started = true;
    // `retry:` then the stream's position as an id without data: a browser keeps the id as its
    // Last-Event-ID (no event is dispatched), so a reconnect before the first event misses nothing.
    if (window === null) {
      stream.cursor = this.head;
      stream.write(`retry: ${RETRY_MS}\nid: ${stream.cursor}\n\n`);
      stream.live = true;
      return;
    }
    stream.write(`retry: ${RETRY_MS}\n`);
    const from = lastEventId!;
    if (from >= window.prunedThrough && from <= window.head) {
      stream.cursor = from;
      stream.write(`id: ${from}\n\n`);
    } else {
      // Events after `from` were pruned (or `from` is not an id of this catalogue): the client
      // refetches what it shows, and the stream goes on from the newest event.
      stream.cursor = window.head;
      stream.write(
        sseFrame(
          window.head,
          'reset',
          JSON.stringify({
            reason: from < window.prunedThrough ? 'window_exceeded' : 'unknown_id',
            lastEventId: String(from),
            oldestResumableId: String(window.prunedThrough),
          }),
        ),
      );
    }
    await this.catchUp(stream);
  }

  /** Writes a stream what it missed, from the table, until it reaches the live fan-out. */
  private async catchUp(stream: EventStream): Promise<void> {
    try {
      let empty = 0;
      while (!stream.closed) {
        const rows = await readCatalogueEventsAfter(this.db, stream.cursor, PAGE);
        for (const row of rows) {
          if (!stream.send(row)) await drained(stream);
        }
        // Rows the fan-out wrote before this read saw them are read again next round; twice nothing
        // while behind `head` means they were pruned meanwhile: nothing is left to read up to `head`.
        empty = rows.length === 0 ? empty + 1 : 0;
        if (empty >= 2) stream.cursor = Math.max(stream.cursor, this.head);
        // Atomic with the fan-out (no await between the check and the flip): from here the hub writes it.
        if (rows.length < PAGE && stream.cursor >= this.head) {
          stream.live = true;
          return;
        }
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'event stream catch-up failed');
      stream.end();
    }
  }

  /** Reads the events after `head` and writes them to every live stream (one read for all of them). */
  private readNew(): void {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    void this.readLoop().finally(() => {
      this.reading = false;
    });
  }

  private async readLoop(): Promise<void> {
    try {
      do {
        this.readAgain = false;
        if (!this.ready) {
          this.head = (await readEventWindow(this.db)).head;
          this.ready = true;
          this.markRead();
        }
        for (;;) {
          const rows = await readCatalogueEventsAfter(this.db, this.head, PAGE);
          for (const row of rows) {
            if (row.kind === 'chain.rewound') this.onRewound();
            for (const stream of this.streams) if (stream.live) stream.send(row);
          }
          if (rows.length > 0) this.head = rows[rows.length - 1]!.id;
          if (rows.length < PAGE) break;
        }
      } while (this.readAgain && !this.closing);
    } catch (error) {
      // The store is away: try again shortly (the listener also reconnects and calls back).
      this.logger.warn({ err: error }, 'reading new catalogue events failed; retrying');
      if (!this.closing) {
        clearTimeout(this.retryTimer);
        this.retryTimer = setTimeout(() => this.readNew(), 1_000);
        this.retryTimer.unref();
      }
    }
  }

  private add(stream: EventStream): void {
    this.streams.add(stream);
    this.perClient.set(stream.client, (this.perClient.get(stream.client) ?? 0) + 1);
  }

  private remove(stream: EventStream): void {
    stream.closed = true;
    if (!this.streams.delete(stream)) return;
    const left = (this.perClient.get(stream.client) ?? 1) - 1;
    if (left > 0) this.perClient.set(stream.client, left);
    else this.perClient.delete(stream.client);
  }

  /**
   * Ends every open stream and refuses new ones (a stopping server: its drain must not wait for
   * responses that never end). Clients reconnect elsewhere with their Last-Event-ID.
   */
  closeStreams(): void {
    this.closing = true;
    // One still opening (no head written yet) is refused by `open` itself, with the envelope.
    for (const stream of this.streams) if (stream.started) stream.end();
  }

  /** Ends the streams and closes the LISTEN connection. */
  async stop(): Promise<void> {
    this.closeStreams();
    clearInterval(this.heartbeat);
    clearTimeout(this.retryTimer);
    await this.listener.close();
  }
}

const delay = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });

/** Resolves once the stream's socket took its queued bytes (or the stream is gone). */
function drained(stream: EventStream): Promise<void> {
  if (stream.closed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      stream.res.off('drain', done);
      stream.res.off('close', done);
      resolve();
    };
    stream.res.once('drain', done);
    stream.res.once('close', done);
  });
}
