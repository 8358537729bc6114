/** The fee breakdown every prepared position reports (SPEC §2.5 FeeBreakdown). */
import type { FeeBreakdown } from './types.js';

/** The protocol fee on the API's 1e7 scale (0.05%); on chain it is ×100 (PROTOCOL_FEE_1E9). */
export const PROTOCOL_FEE_BPS = 5000;
export const MAX_MAKER_FEE_BPS = 2_000_000;

/**
 * A fee on the API's 1e7 scale as exact percentage text: 5000 → "0.05", 30000 → "0.3",
 * 2005000 → "20.05", 0 → "0". Integer arithmetic, so no float artefacts.
 */
export function feePercent(bps1e7: number): string {
  if (!Number.isSafeInteger(bps1e7) || bps1e7 < 0)
    throw new RangeError(`fee must be a non-negative integer: ${bps1e7}`);
  const whole = Math.floor(bps1e7 / 100_000);
  const fraction = String(bps1e7 % 100_000)
    .padStart(5, '0')
    .replace(/0+$/, '');
  return fraction === '' ? String(whole) : `${whole}.${fraction}`;
}

export function feeBreakdown(makerFeeBps: number): FeeBreakdown {
  const makerFeePercent = feePercent(makerFeeBps);
  const totalFeePercent = feePercent(PROTOCOL_FEE_BPS + makerFeeBps);
  return {
    protocolFeeBps: PROTOCOL_FEE_BPS,
    protocolFeePercent: feePercent(PROTOCOL_FEE_BPS),
    makerFeeBps,
    protocolFee1e7: PROTOCOL_FEE_BPS,
    makerFee1e7: makerFeeBps,
    makerFeePercent,
    totalFeePercent,
    embeddedIn: 'signed_order_data',
    removable: false,
    explanation:
      `Every trade against this position pays a ${feePercent(PROTOCOL_FEE_BPS)}% protocol fee on its input amount` +
      (makerFeeBps > 0
        ? ` and your ${makerFeePercent}% maker fee, which stays in the position (${totalFeePercent}% in total).`
        : '.') +
      ' Both are instructions of the order your wallet signs (the strategy bytes shipped to Aqua), ahead of the' +
      ' swap curve: they are not a separate transfer or invoice, and no parameter removes the protocol fee.',
  };
}
