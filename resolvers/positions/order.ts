/** The position's order: protocol fee → the kind's curve (with the maker fee, if any) → salt. */
import type { Address, Hex } from 'viem';
import { AQUA_TRAITS, encodeStrategy, strategyHashOf } from '../../chain/order.js';
import {
  aquaProtocolFeeAmountIn,
  buildProgram,
  PROTOCOL_FEE_1E9,
  salt as saltInstruction,
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
  /** The instructions after the protocol fee (strategy.ts), built for this maker fee. */
  curve: readonly Hex[];
  makerFee1e9: number;
  salt: bigint;
}): PositionOrder {
  const program = buildProgram([
    aquaProtocolFeeAmountIn(PROTOCOL_FEE_1E9, params.feeReceiver),
    ...params.curve,
    saltInstruction(params.salt),
  ]);
  const strategy = encodeStrategy({ maker: params.wallet, traits: AQUA_TRAITS, data: program });
  return { program, strategy, strategyHash: strategyHashOf(strategy), makerFee1e9: params.makerFee1e9 };
}
