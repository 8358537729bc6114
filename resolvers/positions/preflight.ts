/** The preflight of a prepared position (SPEC §2.5): checks and the client-fixable issues. */
import { type Address, checksumAddress, getAddress, type Hex, zeroAddress } from 'viem';
import { AQUA_TRAITS, decodeStrategy, isPlainAquaOrder } from '../../chain/order.js';
import { addressArg, decodeProgram, PROTOCOL_FEE_1E9, uintArg } from '../../chain/program.js';
import { human, type Side } from '../../domain/chainReads.js';
import type { TokenConfig } from '../../lib/config.js';
import { feePercent } from './fees.js';
import type { PositionOrder } from './order.js';
import type { PreflightCheck, PreflightIssue, PreparedPayload } from './types.js';

function walletCheck(wallet: string): PreflightCheck {
  if (wallet.toLowerCase() === zeroAddress) {
    return { name: 'wallet_valid', ok: false, detail: 'The zero address cannot sign.' };
  }
  const mixedCase = wallet !== wallet.toLowerCase() && wallet.slice(2) !== wallet.slice(2).toUpperCase();
  if (mixedCase && checksumAddress(wallet as Address) !== wallet) {
    return {
      name: 'wallet_valid',
      ok: false,
      detail: 'The mixed-case address fails its EIP-55 checksum: check it for a typo before signing.',
    };
  }
  return { name: 'wallet_valid', ok: true, detail: `${getAddress(wallet)} signs every step.` };
}

function orderProblems(order: ReturnType<typeof decodeStrategy>, wallet: Address, program: Hex): string[] {
  if (!order) return ['the strategy bytes do not decode as one canonical order'];
  const problems: string[] = [];
  if (order.maker.toLowerCase() !== wallet.toLowerCase()) problems.push('the order maker is not the wallet');
  if (!isPlainAquaOrder(order) || order.traits !== AQUA_TRAITS)
    problems.push('the order traits are not a plain Aqua order');
  if (order.data.toLowerCase() !== program.toLowerCase()) problems.push('the order data is not the program');
  return problems;
}

function programProblems(
  program: Hex,
  feeReceiver: string,
  makerFee1e9: number,
  expected: readonly string[],
): string[] {
  const problems: string[] = [];
  const decoded = decodeProgram(program);
  const names = decoded.map((i) => i.name);
  if (names.join(',') !== expected.join(','))
    problems.push(`program is ${names.join(' → ')}, not ${expected.join(' → ')}`);
  const protocol = decoded[0];
  if (
    protocol?.name !== 'AquaProtocolFeeAmountIn' ||
    uintArg(protocol, 'fee1e9') !== BigInt(PROTOCOL_FEE_1E9) ||
    addressArg(protocol, 'receiver')?.toLowerCase() !== feeReceiver.toLowerCase()
  ) {
    problems.push("the first instruction is not the 0.05% protocol fee to the chain's fee receiver");
  }
  if (makerFee1e9 > 0) {
    const maker = decoded.find((i) => i.name === 'FlatFeeAmountIn');
    if (maker?.name !== 'FlatFeeAmountIn' || uintArg(maker, 'fee1e9') !== BigInt(makerFee1e9)) {
      problems.push('the maker fee instruction does not carry makerFeeBps × 100');
    }
  }
  return problems;
}

/**
 * Decodes our own strategy bytes back and checks the fee wiring PROTOCOL.md prescribes. The hash is not
 * recomputed here: `buildPositionOrder` took it of these very bytes a moment before (a second keccak of
 * the strategy was ~1% of a prepare's CPU and could not disagree).
 */
function feesWiringCheck(
  order: PositionOrder,
  wallet: Address,
  feeReceiver: string,
  expectedNames: readonly string[],
): PreflightCheck {
  const problems = orderProblems(decodeStrategy(order.strategy), wallet, order.program);
  problems.push(...programProblems(order.program, feeReceiver, order.makerFee1e9, expectedNames));
  if (problems.length > 0) return { name: 'fees_wiring', ok: false, detail: problems.join('; ') };
  return {
    name: 'fees_wiring',
    ok: true,
    detail:
      `Decoded from the order: protocol fee ${PROTOCOL_FEE_1E9}/1e9 (0.05%) to the chain's fee receiver first` +
      (order.makerFee1e9 > 0 ? `, then the maker fee ${order.makerFee1e9}/1e9` : '') +
      `; the program runs ${expectedNames.slice(1).join(' → ')}.`,
  };
}

/** With includeApprovals=false a short allowance is reported instead of fixed. */
function allowanceChecks(
  sides: readonly Side[],
  aqua: Address,
  checks: PreflightCheck[],
  issues: PreflightIssue[],
): void {
  for (const side of sides) {
    const needed = side.committed + side.amount;
    if (side.allowance >= needed) continue;
    checks.push({
      name: `allowance_${side.suffix}`,
      ok: false,
      detail:
        `${side.token.symbol}: allowance ${human(side.allowance, side.token)} is below ${human(needed, side.token)}` +
        `${side.committed > 0n ? ` (this position plus the ${human(side.committed, side.token)} the wallet's open positions hold)` : ''}. ` +
        'The position still ships (ship never checks the allowance), but no swap can fill it until Aqua is approved ' +
        '(includeApprovals=false left the step out).',
    });
    issues.push({
      type: 'INSUFFICIENT_ALLOWANCE',
      expected: needed.toString(),
      actual: side.allowance.toString(),
      spender: aqua,
      token: getAddress(side.token.address),
    });
  }
}

function balanceChecks(sides: readonly Side[], checks: PreflightCheck[], issues: PreflightIssue[]): void {
  for (const side of sides) {
    if (side.balance === undefined) continue;
    const needed = side.committed + side.amount;
    const ok = side.balance >= needed;
    const open =
      side.committed > 0n ? ` (with the ${human(side.committed, side.token)} of its open positions)` : '';
    checks.push({
      name: `balance_${side.suffix}`,
      ok,
      detail: `${side.token.symbol}: balance ${human(side.balance, side.token)} ${ok ? 'covers' : 'is below'} ${human(needed, side.token)}${open}.`,
    });
    if (!ok) {
      issues.push({
        type: 'INSUFFICIENT_BALANCE',
        expected: needed.toString(),
        actual: side.balance.toString(),
        token: getAddress(side.token.address),
      });
    }
  }
}

/**
 * Below 0.01% a maker fee is far more likely a slip of scale than a choice: 30 is 0.0003% on the 1e7
 * scale, where the caller probably meant 30 basis points (30000). The position is still prepared as
 * asked; the check (present only then) sends it to review and says what the value means.
 */
const LIKELY_SLIP_BELOW = 1000;

function makerFeeScaleCheck(makerFeeBps: number): PreflightCheck | null {
  if (makerFeeBps <= 0 || makerFeeBps >= LIKELY_SLIP_BELOW) return null;
  return {
    name: 'maker_fee_scale',
    ok: false,
    detail:
      `makerFeeBps ${makerFeeBps} is ${feePercent(makerFeeBps)}% on the 1e7 scale (10000000 = 100%), below 0.01%: ` +
      `if you meant ${makerFeeBps} basis points (${feePercent(makerFeeBps * 1000)}%), send ${makerFeeBps * 1000}.`,
  };
}

export function preflightOf(params: {
  input: { wallet: string; includeApprovals: boolean; makerFeeBps: number };
  wallet: Address;
  aqua: Address;
  tokenA: TokenConfig;
  tokenB: TokenConfig;
  amounts: readonly [bigint, bigint];
  order: PositionOrder;
  /** The instruction names the kind's program must decode to (strategy.ts). */
  expectedNames: readonly string[];
  feeReceiver: string;
  sides: readonly Side[];
}): PreparedPayload['preflight'] {
  const { tokenA, tokenB, amounts } = params;
  const checks: PreflightCheck[] = [
    walletCheck(params.input.wallet),
    {
      name: 'tokens_sorted',
      ok: tokenA.address.toLowerCase() < tokenB.address.toLowerCase(),
      detail: `tokenA ${tokenA.symbol} (${getAddress(tokenA.address)}) has the lower address.`,
    },
    {
      name: 'both_amounts_positive',
      ok: amounts[0] > 0n && amounts[1] > 0n,
      detail: 'x·y=k needs a balance on both sides.',
    },
    feesWiringCheck(params.order, params.wallet, params.feeReceiver, params.expectedNames),
  ];
  const feeScale = makerFeeScaleCheck(params.input.makerFeeBps);
  if (feeScale) checks.push(feeScale);
  const issues: PreflightIssue[] = [];
  if (!params.input.includeApprovals) allowanceChecks(params.sides, params.aqua, checks, issues);
  balanceChecks(params.sides, checks, issues);
  return { status: checks.every((c) => c.ok) ? 'ready' : 'review', checks, issues };
}
