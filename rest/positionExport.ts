/**
 * The rows of GET /v1/positions/export: CSV (RFC 4180, formula-injection safe) and NDJSON, shaped from
 * the list's `ListedPosition` (the one status shaping), and a writer that honours backpressure.
 */
import type { Response } from 'express';
import type { ListedPosition } from '../domain/positions.js';

export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const CSV_COLUMNS = [
  'positionId',
  'status',
  'chain',
  'chainId',
  'wallet',
  'tokenASymbol',
  'tokenAAddress',
  'tokenAAmount',
  'tokenADecimals',
  'tokenBSymbol',
  'tokenBAddress',
  'tokenBAmount',
  'tokenBDecimals',
  'makerFeeBps',
  'protocolFeeBps',
  'observedOnChain',
  'volumeUsd',
  'preparedAt',
  'firstSeenOnChainAt',
  'firstSeenFilledAt',
  'firstSeenDockedAt',
  'metadata',
] as const;

/** Cells a spreadsheet would read as a formula (OWASP CSV injection): prefixed with `'`. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One RFC 4180 cell: formula starts neutralised, then quoted when it holds `"`, `,`, CR or LF. */
export function csvCell(value: string | number | boolean | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const iso = (date: Date | null) => (date === null ? null : new Date(date).toISOString());

function csvValues(p: ListedPosition): (string | number | boolean | null)[] {
  return [
    p.positionId,
    p.status,
    p.chain,
    p.chainId,
    p.wallet,
    p.tokenA.symbol,
    p.tokenA.address,
    p.tokenA.amount,
    p.tokenA.decimals,
    p.tokenB.symbol,
    p.tokenB.address,
    p.tokenB.amount,
    p.tokenB.decimals,
    p.makerFeeBps,
    p.protocolFeeBps,
    p.observedOnChain,
    p.volumeUsd,
    iso(p.preparedAt),
    iso(p.firstSeenOnChainAt),
    iso(p.firstSeenFilledAt),
    iso(p.firstSeenDockedAt),
    p.metadata === null ? null : JSON.stringify(p.metadata),
  ];
}

export const csvHeader = () => `${CSV_COLUMNS.join(',')}\r\n`;

export const csvLine = (p: ListedPosition) => `${csvValues(p).map(csvCell).join(',')}\r\n`;

/** One NDJSON line: the list item's JSON (dates as ISO strings by JSON.stringify). */
export const ndjsonLine = (p: ListedPosition) => `${JSON.stringify(p)}\n`;

/**
 * A writer of `res` that honours backpressure: `write(chunk)` resolves once the chunk is taken, after
 * 'drain' when the buffer was full; false when the client has gone (the export stops instead of reading
 * more pages for nobody). A client that takes nothing for `idleTimeoutMs` while a chunk waits is cut
 * (the socket destroyed, false): an export opened and never read would otherwise hold its buffers and
 * its slot for as long as the client likes. One 'drain' and one 'close' listener for the whole
 * response, not one per wait: under the `compression` wrapper, `res.on('drain')` lands on its zlib
 * stream and `res.off` does not reach it, so a listener per wait piled up there
 * (MaxListenersExceededWarning after 11 pages).
 */
export function chunkWriter(res: Response, idleTimeoutMs: number): (chunk: string) => Promise<boolean> {
  let waiting: ((ok: boolean) => void) | null = null;
  let idle: NodeJS.Timeout | undefined;
  const settle = (ok: boolean) => {
    clearTimeout(idle);
    const resolve = waiting;
    waiting = null;
    resolve?.(ok);
  };
  res.on('drain', () => settle(true));
  res.on('close', () => settle(false));
  return (chunk) => {
    if (res.destroyed || res.writableEnded) return Promise.resolve(false);
    if (res.write(chunk)) return Promise.resolve(true);
    return new Promise((resolve) => {
      waiting = resolve;
      idle = setTimeout(() => {
        settle(false);
        res.destroy();
      }, idleTimeoutMs);
    });
  };
}
