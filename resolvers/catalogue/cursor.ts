/**
 * The opaque keyset cursors of the lists (strategies; positions and webhook deliveries): what they carry
 * and how they are read back. A cursor comes
 * from the client, so every field is checked here, before any SQL, against what Postgres accepts for
 * it: a decoded cursor that passes can never make the list statement raise.
 */
import { ApiError } from '../../lib/errors.js';
import type { ListPosition } from '../../store/strategyList.js';
import type { StrategySort } from './params.js';

const SORT_CODE: Record<StrategySort, string> = { recent: 'r', volume: 'v', fees: 'f', apy: 'a' };
/** The sorts whose key is a number, by their cursor code. */
const NUMERIC_SORTS: Record<string, StrategySort | undefined> = { v: 'volume', f: 'fees', a: 'apy' };
/** Most characters of a cursor (the route refuses longer text before it gets here). */
export const MAX_CURSOR_LENGTH = 400;
/** A strategy hash as the store keeps it: lower-case hex. */
const STORED_HASH = /^0x[0-9a-f]{64}$/;
/** A chain key: 1-64 characters, none of them a control, format, surrogate or unassigned code point. */
const CHAIN_KEY = /^[^\p{C}]{1,64}$/u;
/**
 * timestamptz as Postgres writes it as text (ISO DateStyle): date, time, up to six fraction digits and
 * the session's offset (`+00`, `+05:30`).
 */
const TIMESTAMP_TEXT =
  /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?(?:Z|[+-](\d{2})(?::(\d{2}))?)$/;
/** Postgres refuses a UTC offset of 16 hours or more ("time zone displacement out of range"). */
const MAX_OFFSET_HOURS = 15;

/** The opaque cursor: the sort and the (key, hash, chain) of the last row shown, base64url JSON. */
export function encodeCursor(sort: StrategySort, position: ListPosition): string {
  return Buffer.from(
    JSON.stringify([SORT_CODE[sort], position.value, position.hash, position.chain]),
  ).toString('base64url');
}

/**
 * True when `text` is a timestamp Postgres reads without raising and without rolling it over: a real
 * calendar date from year 1 to 9999, hours 0-23, minutes and seconds 0-59 (no leap second, which
 * Postgres would carry into the next minute), an offset under 16 hours.
 */
export function isTimestampText(text: string): boolean {
  const match = TIMESTAMP_TEXT.exec(text);
  if (!match) return false;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, offsetHours = 0, offsetMinutes = 0] =
    match.slice(1).map((part) => Number(part ?? 0));
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  if (hour > 23 || minute > 59 || second > 59) return false;
  if (offsetHours > MAX_OFFSET_HOURS || offsetMinutes > 59) return false;
  // The day exists in that month (leap years included): Date.UTC would roll 02-30 into March.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const invalidCursor = () =>
  ApiError.invalid('cursor', 'cursor is not one this service issued; start again without it.');

/** The `length` fields a cursor's base64url JSON array holds; anything else is 400 naming `cursor`. */
function cursorFields(cursor: string, length: number): unknown[] {
  // What a script sends when it copies the last page's `nextCursor: null` into the next request.
  if (cursor === 'null' || cursor === 'undefined')
    throw ApiError.invalid(
      'cursor',
      `cursor=${cursor}: the previous page was the last one (its nextCursor was null); stop there, or start again without cursor.`,
    );
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalidCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== length) throw invalidCursor();
  return parsed as unknown[];
}

/**
 * The cursor of a newest-first list keyed by (time, id) (a key's positions, an endpoint's deliveries):
 * `[code, time, id]` as base64url JSON, read back with the same checks as the strategy list's: the
 * list's code, a timestamp Postgres reads, an id of `idPattern`, and exactly the text issued.
 */
export function timeKeysetCursor(code: string, idPattern: RegExp) {
  const encode = (at: string, id: string): string =>
    Buffer.from(JSON.stringify([code, at, id])).toString('base64url');
  const decode = (cursor: string): { at: string; id: string } => {
    const [issuedCode, at, id] = cursorFields(cursor, 3);
    if (issuedCode !== code || typeof at !== 'string' || !isTimestampText(at)) throw invalidCursor();
    if (typeof id !== 'string' || !idPattern.test(id)) throw invalidCursor();
    if (encode(at, id) !== cursor) throw invalidCursor();
    return { at, id };
  };
  return { encode, decode };
}

/**
 * The position a cursor carries, for `sort`. Anything but a cursor this service issued (its exact
 * encoding, each field of the type and range the store writes) is 400 INVALID_PARAMETER naming
 * `cursor`; so is a cursor of the other sort.
 */
export function decodeCursor(cursor: string, sort: StrategySort): ListPosition {
  const [code, value, hash, chain] = cursorFields(cursor, 4);
  if (typeof hash !== 'string' || !STORED_HASH.test(hash)) throw invalidCursor();
  if (typeof chain !== 'string' || !CHAIN_KEY.test(chain)) throw invalidCursor();
  let issuedFor: StrategySort;
  if (code === 'r' && typeof value === 'string' && isTimestampText(value)) issuedFor = 'recent';
  else if (typeof value === 'number' && Number.isFinite(value) && NUMERIC_SORTS[code as string])
    issuedFor = NUMERIC_SORTS[code as string]!;
  else throw invalidCursor();
  const position: ListPosition = { value, hash, chain };
  // Exactly the text this service would issue for it: no other spelling, padding or trailing bits
  // (and so no invalid UTF-8, which decodes to U+FFFD and re-encodes differently).
  if (encodeCursor(issuedFor, position) !== cursor) throw invalidCursor();
  if (issuedFor !== sort)
    throw ApiError.invalid('cursor', `cursor was issued for sort=${issuedFor}; keep the same sort.`);
  return position;
}
