/**
 * Progress of one sync of a chain: blocks/s, logs/s and the share of the chain indexed, to /metrics
 * after every chunk and, for a sync far behind the head (a backfill), to the log every
 * INDEXER_PROGRESS_SECONDS with an estimate of the time left.
 */
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';

/** A sync with more blocks than this to index is a backfill: it logs its progress at info. */
export const BACKFILL_BLOCKS = 10_000;

export class SyncProgress {
  private readonly started = performance.now();
  private lastLog = performance.now();
  private blocks = 0;
  private logs = 0;
  readonly backfill: boolean;

  constructor(
    private readonly chain: string,
    private readonly range: { startBlock: number; from: number; target: number; head: number },
    private readonly out: { logger: Logger; metrics?: Metrics; everyMs: number },
  ) {
    this.backfill = range.target - range.from + 1 > BACKFILL_BLOCKS;
    if (this.backfill)
      out.logger.info(
        { from: range.from, target: range.target, head: range.head, blocks: range.target - range.from + 1 },
        'backfill started',
      );
  }

  /** Share of the chain from its start block to the target that is indexed once `indexed` is. */
  ratio(indexed: number): number {
    const total = this.range.target - this.range.startBlock + 1;
    return total <= 0 ? 1 : Math.min(1, Math.max(0, (indexed - this.range.startBlock + 1) / total));
  }

  /** A chunk up to `indexed` with `logs` logs was stored. */
  chunk(indexed: number, blocks: number, logs: number): void {
    this.blocks += blocks;
    this.logs += logs;
    const now = performance.now();
    const seconds = (now - this.started) / 1000;
    const blocksPerSecond = seconds > 0 ? this.blocks / seconds : 0;
    const logsPerSecond = seconds > 0 ? this.logs / seconds : 0;
    const done = indexed >= this.range.target;
    this.out.metrics?.indexerProgress({
      chain: this.chain,
      head: this.range.head,
      indexed,
      ratio: this.ratio(indexed),
      blocksPerSecond: done ? 0 : blocksPerSecond,
      logsPerSecond: done ? 0 : logsPerSecond,
    });
    if (!this.backfill || (!done && now - this.lastLog < this.out.everyMs)) return;
    this.lastLog = now;
    const left = this.range.target - indexed;
    this.out.logger.info(
      {
        indexed,
        target: this.range.target,
        percent: Math.round(this.ratio(indexed) * 10_000) / 100,
        blocksPerSecond: Math.round(blocksPerSecond),
        logsPerSecond: Math.round(logsPerSecond),
        etaSeconds: blocksPerSecond > 0 ? Math.round(left / blocksPerSecond) : null,
      },
      done ? 'backfill done' : 'backfill progress',
    );
  }
}
