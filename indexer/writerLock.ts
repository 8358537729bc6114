/**
 * The writer lock of one chain: a Postgres advisory lock held on a connection of its own. Only its
 * holder indexes the chain, and writes through that same connection, so a writer that lost its
 * connection (and with it the lock) cannot commit anything more.
 */
import pg from 'pg';
import type { Logger } from '../lib/logger.js';
import type { Db } from '../store/db.js';

/** Advisory-lock namespace of the per-chain writer locks (second key: hashtext(chain key)). */
export const CHAIN_LOCK_SPACE = 7_420_010;

export class WriterLock {
  private client: pg.Client | null = null;
  private leading = false;

  constructor(
    private readonly db: Db,
    private readonly chainKey: string,
    private readonly logger: Logger,
  ) {}

  /** True while this process holds the chain's writer lock. */
  get isLeader(): boolean {
    return this.leading;
  }

  /** The lock's connection, taking the lock when not held yet; null when another process holds it. */
  async lead(): Promise<pg.Client | null> {
    if (this.client && this.leading) return this.client;
    const client = new pg.Client(this.db.options);
    client.on('error', (error) => {
      this.logger.warn({ err: error.message }, 'indexer lock connection lost');
      if (this.client === client) {
        this.client = null;
        this.leading = false;
      }
    });
    await client.connect();
    try {
      const { rows } = await client.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked',
        [CHAIN_LOCK_SPACE, this.chainKey],
      );
      if (!rows[0]?.locked) {
        await client.end();
        return null;
      }
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    this.client = client;
    this.leading = true;
    this.logger.info('indexer leads this chain');
    return client;
  }

  /** True when the lock's connection still answers a query. */
  async answers(): Promise<boolean> {
    try {
      await this.client?.query('SELECT 1');
      return this.client !== null;
    } catch {
      return false;
    }
  }

  /** Closes the lock's connection: the lock goes with it. */
  async release(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.leading = false;
    await client?.end().catch(() => {});
  }
}
