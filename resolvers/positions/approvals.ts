/** Approve steps: where the live allowance to a spender is short, with the USDT reset rule. */
import { type Address, getAddress, maxUint256 } from 'viem';
import { approveCalldata } from '../../chain/calldata.js';
import { human } from '../../domain/chainReads.js';
import type { TokenConfig } from '../../lib/config.js';
import type { PreparedTransaction } from './types.js';

/** Appends a step numbered in order; none carries value. */
export type StepSink = (
  purpose: PreparedTransaction['purpose'],
  to: string,
  data: string,
  description: string,
) => void;

export function stepList(): { transactions: PreparedTransaction[]; step: StepSink } {
  const transactions: PreparedTransaction[] = [];
  const step: StepSink = (purpose, to, data, description) =>
    transactions.push({ step: transactions.length + 1, purpose, to, value: '0', data, description });
  return { transactions, step };
}

/**
 * The approve step(s) of one token when `allowance` is below `needed` (none otherwise). USDT (and
 * tokens like it) refuse to change an allowance that is not zero to another value that is not zero: a
 * short allowance goes to zero first, on every token (one more step, never a revert).
 */
export function approveSteps(
  step: StepSink,
  params: {
    token: TokenConfig;
    spender: Address;
    spenderName: string;
    allowance: bigint;
    /** What must be covered; nothing is returned when the allowance reaches it. */
    needed: bigint;
    /** The allowance to set when short: `needed`, or max uint256 for an unlimited approval. */
    target: bigint;
    why: string;
  },
): void {
  const { token: config, spender, spenderName, allowance, target } = params;
  if (allowance >= params.needed) return;
  const shown = target === maxUint256 ? 'any amount (unlimited)' : human(target, config);
  const token = getAddress(config.address);
  if (allowance > 0n) {
    step(
      'approve',
      token,
      approveCalldata(spender, 0n),
      `Reset this wallet's allowance for ${spenderName} (${spender}) from ${human(allowance, config)} to 0 ` +
        `before raising it: tokens such as USDT refuse to change an allowance that is not zero.`,
    );
  }
  step(
    'approve',
    token,
    approveCalldata(spender, target),
    `Approve ${spenderName} (${spender}) to use up to ${shown} of this wallet. ` +
      `The current allowance (${human(allowance, config)}) is short. ${params.why}`,
  );
}
