/**
 * The fees a SwapVM program takes from an input, as the router takes them (PROTOCOL.md): the fee
 * instructions before the curve, in order; the protocol fee rounds down, the maker's flat fee up.
 * Quotes (resolvers/quote.ts) and swaps (resolvers/swaps.ts) report them alike.
 */
import type { Hex } from 'viem';
import { instructionSpec } from '../chain/instructions.js';
import { decodeProgram, FEE_SCALE_1E9, uintArg } from '../chain/program.js';

/** A fee of the program on this input: base units of tokenIn, and its rate. */
export interface QuoteFee {
  amount: string;
  /** On-chain rate (1e9 = 100%). */
  fee1e9: number;
  /** The API's 1e7 scale (5000 = 0.05%). */
  bps: number;
  percent: string;
}

function percentText(fee1e9: number): string {
  // percent = fee1e9 / 1e7, exactly.
  const whole = Math.floor(fee1e9 / 1e7);
  const frac = String(fee1e9 % 1e7)
    .padStart(7, '0')
    .replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : String(whole);
}

function feeOf(amount: bigint, fee1e9: number): QuoteFee {
  return { amount: amount.toString(), fee1e9, bps: fee1e9 / 100, percent: percentText(fee1e9) };
}

export type FeeStep = { kind: 'protocol' | 'maker'; fee1e9: number };

/** The fee instructions of a program before its curve, in order (decoded once per strategy). */
export function feeSteps(program: Hex): FeeStep[] {
  const steps: FeeStep[] = [];
  for (const instruction of decodeProgram(program)) {
    if (instruction.opcode !== null && instructionSpec(instruction.opcode)?.kind === 'curve') break;
    const fee1e9 = uintArg(instruction, 'fee1e9');
    if (fee1e9 === undefined) continue;
    if (instruction.name === 'AquaProtocolFeeAmountIn') {
      steps.push({ kind: 'protocol', fee1e9: Number(fee1e9) });
    } else if (instruction.name === 'FlatFeeAmountIn') {
      steps.push({ kind: 'maker', fee1e9: Number(fee1e9) });
    }
  }
  return steps;
}

/**
 * The fees the program takes from `amountIn`, walking its instructions in order as the router does up
 * to the curve: the protocol fee rounds down, the maker's flat fee rounds up (PROTOCOL.md).
 */
export function programFees(
  program: Hex | FeeStep[],
  amountIn: bigint,
): { protocolFee: QuoteFee; makerFee: QuoteFee | null } {
  const scale = BigInt(FEE_SCALE_1E9);
  let remaining = amountIn;
  const protocol = { amount: 0n, fee1e9: 0 };
  const maker = { amount: 0n, fee1e9: 0, present: false };
  for (const step of typeof program === 'string' ? feeSteps(program) : program) {
    const rate = BigInt(step.fee1e9);
    if (step.kind === 'protocol') {
      const fee = (remaining * rate) / scale;
      remaining -= fee;
      protocol.amount += fee;
      protocol.fee1e9 += step.fee1e9;
    } else {
      const fee = (remaining * rate + scale - 1n) / scale;
      remaining -= fee;
      maker.amount += fee;
      maker.fee1e9 += step.fee1e9;
      maker.present = true;
    }
  }
  return {
    protocolFee: feeOf(protocol.amount, protocol.fee1e9),
    makerFee: maker.present ? feeOf(maker.amount, maker.fee1e9) : null,
  };
}
