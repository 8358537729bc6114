import pg from 'pg';
import type { Logger } from '../lib/logger.js';

/** Reconnect delays of a lost LISTEN connection: doubling from the first to the last. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5_000;

export interface ListenHandlers {
  /** A NOTIFY on the channel arrived, with its payload ('' when it has none). */
  notified(payload: string): void;
  /**
   * The connection listens (first time or again after a loss): notifications sent while it was away
   * are lost, so the caller reads what it may have missed.
   */
  connected(): void;
}

/**
 * One dedicated connection LISTENing on `channel` (outside the pool: a pooled client would be
 * recycled, and with it the subscription). A lost connection (the store restarting, a failover) is
 * opened again after a delay that doubles up to 5 s, for as long as the listener is not closed.
 */
export class PgListener {
  private client: pg.Client | null = null;
  private closed = false;
  private delayMs = RETRY_FIRST_MS;
  private timer: NodeJS.Timeout | undefined;
  private listening = false;

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly handlers: ListenHandlers,
    private readonly logger: Logger,
  ) {}

  get connected(): boolean {
    return this.listening;
  }

  start(): void {
    void this.connect();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: 2_000,
      keepAlive: true,
    });
    this.client = client;
    let lost = false;
    const onLost = (error?: unknown) => {
      if (lost) return;
      lost = true;
      if (this.listening)
        this.logger.warn({ err: errorText(error), channel: this.channel }, 'listen connection lost');
      this.listening = false;
      client.end().catch(() => {});
      if (this.closed) return;
      this.timer = setTimeout(() => void this.connect(), this.delayMs);
      this.timer.unref();
      this.delayMs = Math.min(this.delayMs * 2, RETRY_MAX_MS);
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (message) => {
      if (message.channel === this.channel) this.handlers.notified(message.payload ?? '');
    });
    try {
      await client.connect();
      // The channel is a constant identifier of the caller, never client input.
      await client.query(`LISTEN ${this.channel}`);
    } catch (error) {
      onLost(error);
      return;
    }
    if (this.closed || lost) return;
    this.listening = true;
    this.delayMs = RETRY_FIRST_MS;
    this.handlers.connected();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.listening = false;
    await this.client?.end().catch(() => {});
  }
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : undefined);
