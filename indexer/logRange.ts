/**
 * How many blocks one `eth_getLogs` asks for. Providers refuse a range that is too wide or whose
 * answer would be too large, each in its own words; the span halves (or drops to the range the
 * provider suggests) on a refusal and doubles back after a run of answers, up to the configured
 * chunk. A learned span outlives the chunk that taught it: the next ranges start from it.
 */
import { BaseError, HttpRequestError, TimeoutError } from 'viem';

/** Answers in a row at one span before the span doubles again. */
export const GROW_AFTER = 4;

/** What real providers answer to a range or result they will not serve. */
const REFUSAL_TEXT = [
  /returned more than \d+ results/i, // geth/Infura: "query returned more than 10000 results"
  /more than \d+ (results|logs)/i,
  /block range/i, // "block range is too large", "block range too wide", "exceeds max block range"
  /range (is )?too (large|wide|big)/i,
  /range exceed/i, // "range exceeds limit"
  /exceeds? (the )?max(imum)? /i, // reth: "query exceeds max results 20000"
  /too many (results|logs|blocks)/i,
  /response size (exceeded|is too large|too big)/i, // Alchemy: "Log response size exceeded"
  /limited to a [\d,]+ (block )?range/i, // QuickNode: "eth_getLogs is limited to a 10,000 range"
  /result (set )?(is )?too large/i,
  /query timeout/i,
];

/** JSON-RPC codes a provider uses for such a refusal (EIP-1474 "limit exceeded", and vendors' own). */
const REFUSAL_CODES = new Set([-32005, -32614, -32047]);

/** HTTP statuses that mean "too much" rather than "not now": 413 (payload too large). */
const REFUSAL_STATUSES = new Set([413]);

function errorsOf(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current && chain.length < 10) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

function textOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const e = error as Error & { details?: string; shortMessage?: string };
  return [e.details, e.shortMessage, e.message].filter(Boolean).join(' | ');
}

/**
 * True when the node refused the range itself (too wide, too many results, too slow): a narrower
 * range may succeed. A failed connection, a 429 or a 5xx is not about the range and is not one.
 */
export function isRangeRefusal(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  if (error.walk((e) => e instanceof TimeoutError)) return true;
  for (const e of errorsOf(error)) {
    if (e instanceof HttpRequestError && e.status !== undefined && REFUSAL_STATUSES.has(e.status))
      return true;
    const { code, status } = e as { code?: unknown; status?: unknown };
    if (typeof status === 'number' && REFUSAL_STATUSES.has(status)) return true;
    if (typeof code === 'number' && REFUSAL_CODES.has(code)) return true;
    const text = textOf(e);
    if (REFUSAL_TEXT.some((re) => re.test(text))) return true;
  }
  return false;
}

/**
 * The number of blocks a provider suggests in its refusal, when it does: Alchemy's
 * "this block range should work: [0x1, 0x2]", reth's "retry with the range 10-20".
 */
export function suggestedSpan(error: unknown): number | null {
  for (const e of errorsOf(error)) {
    const text = textOf(e);
    const hex = /\[\s*0x([0-9a-f]+)\s*,\s*0x([0-9a-f]+)\s*\]/i.exec(text);
    if (hex) {
      const span = Number.parseInt(hex[2]!, 16) - Number.parseInt(hex[1]!, 16) + 1;
      if (span >= 1) return span;
    }
    const dec = /range (\d+)\s*-\s*(\d+)/i.exec(text);
    if (dec) {
      const span = Number(dec[2]) - Number(dec[1]) + 1;
      if (span >= 1) return span;
    }
  }
  return null;
}

export class LogRange {
  private current: number;
  private successes = 0;

  constructor(
    /** The widest span ever asked (INDEXER_CHUNK_BLOCKS). */
    readonly max: number,
    private readonly onChange?: (span: number) => void,
  ) {
    this.current = max;
  }

  get span(): number {
    return this.current;
  }

  /** A range of `asked` blocks was refused: the next ask is narrower. False when it cannot be. */
  refused(asked: number, error: unknown): boolean {
    if (asked <= 1) return false;
    const hint = suggestedSpan(error);
    const next = Math.max(1, Math.min(Math.floor(asked / 2), hint !== null && hint < asked ? hint : asked));
    this.set(next);
    this.successes = 0;
    return true;
  }

  /** A range of `asked` blocks was answered. */
  answered(asked: number): void {
    // Only answers at the full span count towards growing it (a short tail range says little).
    if (asked < this.current) return;
    if (++this.successes >= GROW_AFTER && this.current < this.max) {
      this.set(Math.min(this.max, this.current * 2));
      this.successes = 0;
    }
  }

  private set(span: number): void {
    if (span === this.current) return;
    this.current = span;
    this.onChange?.(span);
  }
}
