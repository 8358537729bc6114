/**
 * POST /v1/positions (SPEC §2.4–2.5, §4.9). The service builds the order that carries the protocol fee
 * and the unsigned transactions that ship it; it never signs, never broadcasts and reserves nothing.
 */
import { type Address, getAddress, maxUint256 } from 'viem';
import { shipCalldata } from '../../chain/calldata.js';
import { apiFeeToOnChain } from '../../chain/program.js';
import { human, type Side } from '../../domain/chainReads.js';
import { readCoverage } from '../../domain/coverage.js';
import type { TokenConfig } from '../../lib/config.js';
import { ApiError } from '../../lib/errors.js';
import { findPositionByIdempotencyKey, insertPosition } from '../../store/positions.js';
import { UNAUTHORIZED_MESSAGE } from '../apiKeys.js';
import type { GraphQLContext } from '../context.js';
import { approveSteps, type StepSink, stepList } from './approvals.js';
import { feeBreakdown, feePercent, PROTOCOL_FEE_BPS } from './fees.js';
import { fingerprintOf, positionSalt, replay } from './idempotency.js';
import { assertEnvironment, assertInput, type ResolvedIntent, resolveIntent } from './intent.js';
import { buildPositionOrder, type PositionOrder } from './order.js';
import { preflightOf } from './preflight.js';
import { assertReplaceable, dockStep, type Replacing } from './replacing.js';
import { simulatedReplay, simulatePayload, withSimulated } from './simulated.js';
import { type ResolvedStrategy, resolveStrategy } from './strategy.js';
import type { PositionToken, PreparedPayload, PreparedPosition, PreparePositionInput } from './types.js';

/** Whole-token ratio amountA / amountB (decimals applied; equal to the raw ratio for equal decimals). */
function impliedRate(a: bigint, tokenA: TokenConfig, b: bigint, tokenB: TokenConfig): number | null {
  const scale = 10n ** 18n;
  const numerator = a * 10n ** BigInt(tokenB.decimals) * scale;
  const denominator = b * 10n ** BigInt(tokenA.decimals);
  if (denominator === 0n) return null;
  const rate = Number(numerator / denominator) / 1e18;
  return Number.isFinite(rate) ? rate : null;
}

function shipStep(
  step: StepSink,
  intent: ResolvedIntent,
  order: PositionOrder,
  curve: ResolvedStrategy,
  aqua: Address,
): void {
  const { chain, tokenA, tokenB, amountA, amountB, makerFeeBps } = intent;
  const router = getAddress(chain.router);
  step(
    'ship',
    aqua,
    shipCalldata({
      app: router,
      strategy: order.strategy,
      tokens: [tokenA.address as Address, tokenB.address as Address],
      amounts: [amountA, amountB],
    }),
    `Ship the position to Aqua on ${chain.name ?? chain.key}: ${curve.describe(`${human(amountA, tokenA)} and ${human(amountB, tokenB)}`)} ` +
      `on the SwapVM router ${router}. The signed order embeds the ` +
      `${feePercent(PROTOCOL_FEE_BPS)}% protocol fee${makerFeeBps > 0 ? ` and your ${feePercent(makerFeeBps)}% maker fee` : ''}. ` +
      `Its strategy hash is ${order.strategyHash}.`,
  );
}

function transactionsOf(
  intent: ResolvedIntent,
  sides: readonly Side[],
  order: PositionOrder,
  curve: ResolvedStrategy,
  aqua: Address,
  replacing: Replacing | null,
) {
  const { transactions, step } = stepList();
  if (replacing) dockStep(step, intent.chain, replacing);
  if (intent.includeApprovals) {
    for (const side of sides) {
      const needed = side.committed + side.amount;
      approveSteps(step, {
        token: side.token,
        spender: aqua,
        spenderName: 'Aqua',
        allowance: side.allowance,
        needed,
        target: intent.approval === 'unlimited' ? maxUint256 : needed,
        why: `${
          side.committed > 0n
            ? `One allowance serves every position of this wallet: this one's ${human(side.amount, side.token)} plus the ${human(side.committed, side.token)} its open positions hold${replacing ? ' once the position it replaces is docked' : ''}. `
            : ''
        }Tokens stay in the wallet; Aqua moves them only when a taker trades against a position.`,
      });
    }
  }
  shipStep(step, intent, order, curve, aqua);
  return transactions;
}

function payloadOf(
  intent: ResolvedIntent,
  order: PositionOrder,
  curve: ResolvedStrategy,
  sides: readonly Side[],
  input: PreparePositionInput,
  idempotent: boolean,
  replacing: Replacing | null,
): PreparedPayload {
  const { chain, wallet, tokenA, tokenB, amountA, amountB } = intent;
  const aqua = getAddress(chain.aqua);
  const token = (t: TokenConfig, amount: bigint): PositionToken => ({
    symbol: t.symbol,
    address: getAddress(t.address),
    amount: amount.toString(),
    decimals: t.decimals,
  });
  return {
    status: 'prepared',
    chain: chain.key,
    chainId: chain.chainId,
    wallet,
    strategyHash: order.strategyHash,
    transactions: transactionsOf(intent, sides, order, curve, aqua, replacing),
    fee: feeBreakdown(intent.makerFeeBps),
    position: {
      tokenA: token(tokenA, amountA),
      tokenB: token(tokenB, amountB),
      impliedRate: impliedRate(amountA, tokenA, amountB, tokenB),
      programBytes: (order.program.length - 2) / 2,
      strategy: { ...curve.summary, program: order.program },
    },
    preflight: preflightOf({
      input: {
        wallet: input.wallet,
        includeApprovals: intent.includeApprovals,
        makerFeeBps: intent.makerFeeBps,
      },
      wallet,
      aqua,
      tokenA,
      tokenB,
      amounts: [amountA, amountB],
      order,
      expectedNames: curve.expectedNames,
      feeReceiver: chain.feeReceiver,
      sides,
    }),
    idempotent,
    preparedAt: new Date().toISOString(),
    ...(replacing ? { replaces: replacing.hash } : {}),
  };
}

/** The deposits in the order the caller listed them (prices are of the second in the first). */
function deposited(intent: ResolvedIntent) {
  const firstIsA = intent.tokenA.address.toLowerCase() === intent.firstAddress;
  const a = { token: intent.tokenA, amount: intent.amountA };
  const b = { token: intent.tokenB, amount: intent.amountB };
  return firstIsA ? { first: a, second: b } : { first: b, second: a };
}

/**
 * POST /v1/positions. A repeat with the same key and Idempotency-Key returns the stored payload as it
 * was prepared (no chain reads: its approvals and preflight are those of the first call), so the
 * answer, including strategyHash, is identical; a different body with that Idempotency-Key is 422.
 */
export async function preparePosition(
  ctx: GraphQLContext,
  input: PreparePositionInput,
  replacing: Replacing | null = null,
): Promise<PreparedPosition> {
  const key = ctx.apiKey;
  if (!key) throw new ApiError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
  assertInput(input);
  const { registry, db } = ctx.services;
  const chain = registry.require(input.chain, 'chain');
  assertEnvironment(key.environment, chain);
  const intent = resolveIntent(ctx, chain, input);
  const { wallet, tokenA, tokenB, amountA, amountB, metadata } = intent;
  const idempotencyKey = ctx.idempotencyKey;
  // The curve is built from the intent alone (no chain read): the fingerprint holds it as built.
  const makerFee1e9 = apiFeeToOnChain(intent.makerFeeBps);
  const curve = resolveStrategy(
    chain,
    input.strategy,
    deposited(intent),
    makerFee1e9,
    await ctx.services.prices.usd(),
  );
  const fingerprint = fingerprintOf({
    chain: chain.key,
    wallet,
    tokens: [
      { address: tokenA.address, amount: amountA },
      { address: tokenB.address, amount: amountB },
    ],
    makerFeeBps: intent.makerFeeBps,
    includeApprovals: intent.includeApprovals,
    checkBalances: intent.checkBalances,
    metadata,
    approval: intent.approval,
    strategy: curve.summary.kind === 'xyc' ? null : { ...curve.summary, first: intent.firstAddress },
    ...(replacing ? { replaces: replacing.hash } : {}),
  });

  if (idempotencyKey !== null) {
    const existing = await findPositionByIdempotencyKey(db, key.keyId, idempotencyKey);
    if (existing) return simulatedReplay(ctx, chain, replay(existing, fingerprint), input.simulate);
  }

  const order = buildPositionOrder({
    wallet,
    feeReceiver: chain.feeReceiver as Address,
    curve: curve.curve,
    makerFee1e9,
    salt: positionSalt(key.keyId, idempotencyKey),
  });
  // A replaced position is read as `own`, in the same round trip: its state on chain, and its virtual
  // balances, which stop counting against the allowance once its dock (the bundle's first step) runs.
  const coverage = await readCoverage(ctx, {
    chain,
    wallet,
    tokens: [tokenA, tokenB],
    balances: intent.checkBalances,
    ...(replacing ? { own: { hash: replacing.hash, app: replacing.app } } : {}),
  });
  if (replacing) assertReplaceable(replacing.hash, coverage.ownState);
  const sides = coverage.tokens.map(
    (c, i): Side => ({
      token: c.token,
      amount: i === 0 ? amountA : amountB,
      allowance: c.allowance,
      balance: c.balance ?? undefined,
      committed: c.committed - c.own,
      suffix: i === 0 ? 'a' : 'b',
    }),
  );
  const payload = payloadOf(intent, order, curve, sides, input, idempotencyKey !== null, replacing);
  // Before the insert: a bundle that would revert is refused, not stored. The simulation is never stored.
  const simulated = input.simulate ? await simulatePayload(ctx, chain, payload) : null;

  const inserted = await insertPosition(db, {
    strategy_hash: order.strategyHash,
    key_id: key.keyId,
    idempotency_key: idempotencyKey,
    chain_key: chain.key,
    chain_id: chain.chainId,
    wallet: wallet.toLowerCase(),
    token_a: tokenA.address.toLowerCase(),
    token_b: tokenB.address.toLowerCase(),
    amount_a: amountA.toString(),
    amount_b: amountB.toString(),
    maker_fee_bps: intent.makerFeeBps,
    protocol_fee_bps: PROTOCOL_FEE_BPS,
    request_fingerprint: fingerprint,
    payload,
    metadata,
    created_at: new Date(payload.preparedAt),
    replaces: replacing?.hash ?? null,
  });
  if (inserted) return withSimulated({ ...payload, metadata, replayed: false }, simulated);
  // Another call with the same (key, Idempotency-Key) won the insert: answer with its payload.
  const winner =
    idempotencyKey === null ? undefined : await findPositionByIdempotencyKey(db, key.keyId, idempotencyKey);
  if (!winner) throw new ApiError('INTERNAL', 'The prepared position collided with another one; retry.');
  return simulatedReplay(ctx, chain, replay(winner, fingerprint), input.simulate);
}
