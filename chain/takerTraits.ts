/**
 * `takerTraitsAndData` of the router's quote/swap: a 22-byte header (a uint160 of ten uint16 slice
 * end-offsets, slice k at bits 16k, then uint16 flags) followed by the slices in this order: threshold,
 * to, deadline, hook data ×4, callback data ×2, instruction args; the signature is the rest.
 */
import { type Hex, isHex } from 'viem';

export const TAKER_FLAGS = {
  exactIn: 0x01,
  useTransferFromAndAquaPush: 0x40,
} as const;

export type TakerSlices = {
  /** exactIn: minimum amountOut (big-endian uint). */
  threshold?: Hex;
  /** 20-byte recipient of tokenOut (default: the taker). */
  to?: Hex;
  /** Big-endian unix seconds. */
  deadline?: Hex;
  hookData?: readonly [Hex?, Hex?, Hex?, Hex?];
  callbackData?: readonly [Hex?, Hex?];
  instructionArgs?: Hex;
  signature?: Hex;
};

function orderedSlices(slices: TakerSlices): Hex[] {
  const h = slices.hookData ?? [];
  const c = slices.callbackData ?? [];
  return [
    slices.threshold ?? '0x',
    slices.to ?? '0x',
    slices.deadline ?? '0x',
    h[0] ?? '0x',
    h[1] ?? '0x',
    h[2] ?? '0x',
    h[3] ?? '0x',
    c[0] ?? '0x',
    c[1] ?? '0x',
    slices.instructionArgs ?? '0x',
  ];
}

export function encodeTakerTraits({ flags, slices = {} }: { flags: number; slices?: TakerSlices }): Hex {
  if (!Number.isInteger(flags) || flags < 0 || flags > 0xffff)
    throw new RangeError(`flags must be a uint16: ${flags}`);
  let offsets = 0n;
  let end = 0;
  let body = '';
  orderedSlices(slices).forEach((slice, k) => {
    if (!isHex(slice, { strict: true }) || slice.length % 2 !== 0)
      throw new TypeError(`slice ${k} is not hex bytes`);
    body += slice.slice(2);
    end += (slice.length - 2) / 2;
    if (end > 0xffff) throw new RangeError('taker data longer than 65535 bytes');
    offsets |= BigInt(end) << BigInt(16 * k);
  });
  const signature = slices.signature ?? '0x';
  if (!isHex(signature, { strict: true }) || signature.length % 2 !== 0)
    throw new TypeError('signature is not hex');
  const header = offsets.toString(16).padStart(40, '0') + flags.toString(16).padStart(4, '0');
  return `0x${header}${body}${signature.slice(2)}`.toLowerCase() as Hex;
}

/** Minimal exactIn taker traits: no slices, flags exactIn | useTransferFromAndAquaPush = `0x…0041`. */
export function exactInTakerTraits(): Hex {
  return encodeTakerTraits({ flags: TAKER_FLAGS.exactIn | TAKER_FLAGS.useTransferFromAndAquaPush });
}

/** Reads the header back; `null` when the value is shorter than 22 bytes or its offsets are invalid. */
export function decodeTakerTraits(value: Hex): { flags: number; slices: Hex[]; signature: Hex } | null {
  if (!isHex(value, { strict: true }) || value.length % 2 !== 0 || value.length < 2 + 44) return null;
  const offsets = BigInt(`0x${value.slice(2, 42)}`);
  const flags = Number.parseInt(value.slice(42, 46), 16);
  const body = value.slice(46);
  const slices: Hex[] = [];
  let start = 0;
  for (let k = 0; k < 10; k++) {
    const end = Number((offsets >> BigInt(16 * k)) & 0xffffn);
    if (end < start || end * 2 > body.length) return null;
    slices.push(`0x${body.slice(start * 2, end * 2)}`);
    start = end;
  }
  return { flags, slices, signature: `0x${body.slice(start * 2)}` };
}

export const MAX_UINT40 = (1n << 40n) - 1n;

/**
 * exactIn taker data with a minimum output and a deadline (PROTOCOL.md "Taker data with a minimum
 * output and a deadline"): flags 0x0041, offsets [32, 32, 37 ×8], then `minAmountOut` as 32 bytes
 * (the threshold: `TakerTraitsInsufficientMinOutputAmount` below it) and `deadline` as 5 bytes (uint40
 * unix seconds: `TakerTraitsDeadlineExpired` after it).
 */
export function minOutputTakerTraits(params: { minAmountOut: bigint; deadline: bigint }): Hex {
  const { minAmountOut, deadline } = params;
  if (minAmountOut < 0n || minAmountOut >= 1n << 256n)
    throw new RangeError(`minAmountOut is not a uint256: ${minAmountOut}`);
  if (deadline < 0n || deadline > MAX_UINT40) throw new RangeError(`deadline is not a uint40: ${deadline}`);
  return encodeTakerTraits({
    flags: TAKER_FLAGS.exactIn | TAKER_FLAGS.useTransferFromAndAquaPush,
    slices: {
      threshold: `0x${minAmountOut.toString(16).padStart(64, '0')}`,
      deadline: `0x${deadline.toString(16).padStart(10, '0')}`,
    },
  });
}
