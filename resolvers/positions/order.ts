/** The position's order: protocol fee → maker fee (if any) → curve → salt (PROTOCOL.md canonical order). */
import type { Address, Hex } from 'viem';
import { AQUA_TRAITS, encodeStrategy, strategyHashOf } from '../../chain/order.js';
import {
  apiFeeToOnChain,
  aquaProtocolFeeAmountIn,
  buildProgram,
  flatFeeAmountIn,
  PROTOCOL_FEE_1E9,
  salt as saltInstruction,
  xycSwap,
} from '../../chain/program.js';

export interface PositionOrder {
  program: Hex;
  strategy: Hex;
  strategyHash: Hex;
  makerFee1e9: number;
}

export function buildPositionOrder(params: {
  wallet: Address;
  feeReceiver: Address;
  makerFeeBps: number;
  salt: bigint;
}): PositionOrder {
  const makerFee1e9 = apiFeeToOnChain(params.makerFeeBps);
  const program = buildProgram([
    aquaProtocolFeeAmountIn(PROTOCOL_FEE_1E9, params.feeReceiver),
    ...(makerFee1e9 > 0 ? [flatFeeAmountIn(makerFee1e9)] : []),
    xycSwap(),
    saltInstruction(params.salt),
  ]);
  const strategy = encodeStrategy({ maker: params.wallet, traits: AQUA_TRAITS, data: program });
  return { program, strategy, strategyHash: strategyHashOf(strategy), makerFee1e9 };
}
