/**
 * `simulate=true` on a prepared answer (open, approvals, dock, swap): the answer's `transactions` run in
 * order from its wallet on the latest block in one eth_simulateV1 (chain/bundle.ts), reported per step
 * with the gas used, a suggested gas limit and the wallet's balance and allowance changes. A step that
 * would revert is 422 naming it; a node without eth_simulateV1 leaves the answer as it is, saying so.
 */
import { type Address, getAddress, type Hex } from 'viem';
import { simulateBundle } from '../chain/bundle.js';
import { upstream } from '../domain/chainReads.js';
import type { ChainConfig } from '../lib/config.js';
import { ApiError } from '../lib/errors.js';
import type { GraphQLContext } from './context.js';
import type { PreparedTransaction } from './positions/types.js';

/** Whether the bundle was simulated: `unavailable` when the chain's RPC lacks eth_simulateV1. */
export type SimulationAvailability = 'simulated' | 'unavailable';

export interface TokenChange {
  token: string;
  symbol: string | null;
  before: string;
  after: string;
  /** after − before, signed. */
  change: string;
}

export interface AllowanceChange extends TokenChange {
  spender: string;
  spenderName: string;
}

export interface SimulatedStep {
  step: number;
  purpose: PreparedTransaction['purpose'];
  success: boolean;
  gasUsed: string;
  gasLimit: string;
  balanceChanges: TokenChange[];
  allowanceChanges: AllowanceChange[];
}

export interface BundleSimulation {
  steps: SimulatedStep[];
  gasUsed: string;
}

/** What a prepared answer carries once `simulate` was asked. */
export interface Simulated {
  preflight: { simulation: SimulationAvailability };
  simulation: BundleSimulation | null;
}

/**
 * The suggested gas limit: gasUsed × 13 / 10, rounded up. The margin covers the refunds a step earns
 * (EIP-3529: at most a fifth of the gas spent, so the gas a step needs before them is at most 1.25 ×
 * gasUsed) and the 1/64 an inner call keeps back.
 */
export const GAS_MARGIN = { numerator: 13n, denominator: 10n } as const;

const gasLimitOf = (gasUsed: bigint) =>
  (gasUsed * GAS_MARGIN.numerator + GAS_MARGIN.denominator - 1n) / GAS_MARGIN.denominator;

export interface BundleWatch {
  tokens: readonly { address: string; symbol: string | null }[];
  spenders: readonly { address: string; name: string }[];
}

function change(token: BundleWatch['tokens'][number], before: bigint | null, after: bigint | null) {
  if (before === null || after === null || before === after) return null;
  return {
    token: getAddress(token.address),
    symbol: token.symbol,
    before: before.toString(),
    after: after.toString(),
    change: (after - before).toString(),
  };
}

function reverted(
  step: PreparedTransaction,
  count: number,
  wallet: string,
  reason: string,
  hint: string | null,
) {
  return new ApiError(
    'UNPROCESSABLE',
    `Step ${step.step} of ${count} (${step.purpose}, to ${step.to}) would revert when the bundle runs in order ` +
      `from ${wallet} on the latest block: ${reason}${hint ? ` (${hint})` : ''}. Nothing was sent.`,
    {
      issues: [
        {
          type: 'SIMULATION_REVERTED',
          expected: 'every step succeeds',
          actual: reason,
          step: step.step,
          purpose: step.purpose,
        },
      ],
    },
  );
}

/**
 * Simulates `transactions` as the wallet would send them. No steps: nothing to run, no request. Throws
 * 422 UNPROCESSABLE at the first step that reverts; UPSTREAM_* when the node fails otherwise.
 */
export async function simulateTransactions(
  ctx: GraphQLContext,
  params: {
    chain: ChainConfig;
    wallet: string;
    transactions: readonly PreparedTransaction[];
    watch: BundleWatch;
  },
): Promise<Simulated> {
  const { chain, transactions, watch } = params;
  const wallet = getAddress(params.wallet);
  if (transactions.length === 0) {
    return { preflight: { simulation: 'simulated' }, simulation: { steps: [], gasUsed: '0' } };
  }
  let run: Awaited<ReturnType<typeof simulateBundle>>;
  try {
    run = await simulateBundle(ctx.services.clients.simulation(chain.key), {
      wallet,
      multicall: chain.multicall as Address,
      steps: transactions.map((tx) => ({
        to: tx.to as Address,
        data: tx.data as Hex,
        value: BigInt(tx.value),
      })),
      watch: {
        tokens: watch.tokens.map((t) => t.address as Address),
        spenders: watch.spenders.map((s) => s.address as Address),
      },
    });
  } catch (error) {
    throw upstream(error, chain.key);
  }
  if (run === 'unsupported') return { preflight: { simulation: 'unavailable' }, simulation: null };
  const failed = run.steps.findIndex((s) => !s.ok);
  if (failed >= 0) {
    const revert = run.steps[failed]!.revert!;
    throw reverted(transactions[failed]!, transactions.length, wallet, revert.reason, revert.hint);
  }
  const { snapshots } = run;
  const steps = run.steps.map((s, k): SimulatedStep => {
    const [before, after] = [snapshots[k]!, snapshots[k + 1]!];
    return {
      step: transactions[k]!.step,
      purpose: transactions[k]!.purpose,
      success: s.ok,
      gasUsed: s.gasUsed.toString(),
      gasLimit: gasLimitOf(s.gasUsed).toString(),
      balanceChanges: watch.tokens.flatMap((token, t) => {
        const c = change(token, before.balances[t] ?? null, after.balances[t] ?? null);
        return c ? [c] : [];
      }),
      allowanceChanges: watch.tokens.flatMap((token, t) =>
        watch.spenders.flatMap((spender, p) => {
          const c = change(token, before.allowances[t]?.[p] ?? null, after.allowances[t]?.[p] ?? null);
          return c ? [{ ...c, spender: getAddress(spender.address), spenderName: spender.name }] : [];
        }),
      ),
    };
  });
  const gasUsed = run.steps.reduce((sum, s) => sum + s.gasUsed, 0n);
  return { preflight: { simulation: 'simulated' }, simulation: { steps, gasUsed: gasUsed.toString() } };
}
