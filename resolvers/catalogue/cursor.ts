/** The opaque keyset cursor of strategy lists: what it carries and how it is read back. */
import { ApiError } from '../../lib/errors.js';
import type { ListPosition } from '../../store/catalogue.js';
import { HASH, type StrategySort } from './params.js';

const SORT_CODE: Record<StrategySort, string> = { recent: 'r', volume: 'v' };
const TIMESTAMP_TEXT = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}(:\d{2})?|Z)$/;

/** The opaque cursor: the sort and the (key, hash, chain) of the last row shown, base64url JSON. */
export function encodeCursor(sort: StrategySort, position: ListPosition): string {
  return Buffer.from(
    JSON.stringify([SORT_CODE[sort], position.value, position.hash, position.chain]),
  ).toString('base64url');
}

export function decodeCursor(cursor: string, sort: StrategySort): ListPosition {
  const invalid = () =>
    ApiError.invalid('cursor', 'cursor is not one this service issued; start again without it.');
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 4) throw invalid();
  const [code, value, hash, chain] = parsed as unknown[];
  if (typeof hash !== 'string' || !HASH.test(hash) || typeof chain !== 'string' || chain.length > 64)
    throw invalid();
  if (code === 'r' && typeof value === 'string' && TIMESTAMP_TEXT.test(value)) {
    if (sort !== 'recent')
      throw ApiError.invalid('cursor', 'cursor was issued for sort=recent; keep the same sort.');
    return { value, hash, chain };
  }
  if (code === 'v' && typeof value === 'number' && Number.isFinite(value)) {
    if (sort !== 'volume')
      throw ApiError.invalid('cursor', 'cursor was issued for sort=volume; keep the same sort.');
    return { value, hash, chain };
  }
  throw invalid();
}
