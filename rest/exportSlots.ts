/**
 * The exports one process streams at once, in all and per key. An export is long (a 100,000-row CSV is
 * seconds of pages) and costs the process CPU and memory for all that time: one key's many exports,
 * or many keys' together, must not take what the other requests need. A slot is taken before the first
 * page is read and given back when the response ends, however it ends.
 */
import { ApiError } from '../lib/errors.js';

/** Seconds a refused export is told to wait (an export of 100,000 rows takes a few seconds). */
const RETRY_AFTER_SECONDS = 5;

export class ExportSlots {
  private running = 0;
  private readonly byKey = new Map<string, number>();

  constructor(
    private readonly perProcess: number,
    private readonly perKey: number,
  ) {}

  get size(): number {
    return this.running;
  }

  /** Takes a slot for `keyId`, or throws the refusal: 429 for the key's own limit, 503 for the process's. */
  take(keyId: string): () => void {
    const held = this.byKey.get(keyId) ?? 0;
    if (held >= this.perKey) {
      throw new ApiError(
        'RATE_LIMITED',
        `At most ${this.perKey} exports of one key run at once; retry when one has ended.`,
        { retryAfter: RETRY_AFTER_SECONDS },
      );
    }
    if (this.running >= this.perProcess) {
      throw new ApiError(
        'UPSTREAM_UNAVAILABLE',
        'This server runs as many exports as it allows; retry shortly.',
        {
          retryAfter: RETRY_AFTER_SECONDS,
        },
      );
    }
    this.running += 1;
    this.byKey.set(keyId, held + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.running -= 1;
      const left = (this.byKey.get(keyId) ?? 1) - 1;
      if (left > 0) this.byKey.set(keyId, left);
      else this.byKey.delete(keyId);
    };
  }
}
