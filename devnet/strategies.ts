import { type Address, concat, type Hex, size } from 'viem';
import { AQUA_TRAITS, encodeStrategy, type Order, strategyHashOf } from '../chain/order.js';
import {
  aquaProtocolFeeAmountIn,
  buildProgram,
  deadline,
  encodeInstruction,
  flatFeeAmountIn,
  PROTOCOL_FEE_1E9,
  salt,
  xycSwap,
} from '../chain/program.js';
import { concentratedRange, peggedArgs } from '../chain/strategyArgs.js';
import { DEVNET_USD_PRICES } from './chains.js';

/** Devnet strategies: what the makers ship, built with the same encoders the service uses. */

export const TOKEN_DECIMALS = 6;
/** Maker (LP) fees on the 1e9 scale; 0 = no FlatFeeAmountIn instruction. */
const FLAT_FEES_1E9 = [0, 100_000, 300_000, 1_000_000, 3_000_000] as const;
/** USD depth per side of a shipped pool. */
const DEPTHS_USD = [20_000, 50_000, 120_000, 250_000, 400_000] as const;

export interface LiveStrategy {
  maker: Address;
  symbols: readonly [string, string];
  tokens: readonly [Address, Address];
  amounts: readonly [bigint, bigint];
  flatFee1e9: number;
  order: Order;
  strategy: Hex;
  hash: Hex;
  pilot: boolean;
}

export type Random = () => number;

/** A small deterministic PRNG (mulberry32): the seeded catalogue is the same on every start. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

export function units(amount: number): bigint {
  return BigInt(Math.round(amount * 10 ** TOKEN_DECIMALS));
}

export function buildStrategy(params: {
  maker: Address;
  symbols: readonly [string, string];
  tokens: readonly [Address, Address];
  amounts: readonly [bigint, bigint];
  flatFee1e9: number;
  feeReceiver: Address;
  salt: bigint;
  pilot?: boolean;
  /** The instructions after the protocol fee; [maker fee] → XYCSwap when absent. */
  curve?: readonly Hex[];
}): LiveStrategy {
  // Canonical order (PROTOCOL.md): protocol fee → maker fee (if any) → curve → salt.
  const data = buildProgram([
    aquaProtocolFeeAmountIn(PROTOCOL_FEE_1E9, params.feeReceiver),
    ...(params.curve ?? [...(params.flatFee1e9 > 0 ? [flatFeeAmountIn(params.flatFee1e9)] : []), xycSwap()]),
    salt(params.salt),
  ]);
  const order: Order = { maker: params.maker, traits: AQUA_TRAITS, data };
  const strategy = encodeStrategy(order);
  return {
    maker: params.maker,
    symbols: params.symbols,
    tokens: params.tokens,
    amounts: params.amounts,
    flatFee1e9: params.flatFee1e9,
    order,
    strategy,
    hash: strategyHashOf(strategy),
    pilot: params.pilot ?? false,
  };
}

/** A pool of a random depth and maker fee, priced near the reference prices (±0.2%). */
export function randomStrategy(
  random: Random,
  params: {
    maker: Address;
    symbols: readonly [string, string];
    tokens: readonly [Address, Address];
    feeReceiver: Address;
    salt: bigint;
  },
): LiveStrategy {
  const depth = pick(random, DEPTHS_USD) * (0.8 + 0.4 * random());
  const skew = 1 + (random() - 0.5) * 0.004;
  const [a, b] = params.symbols;
  const amounts = [
    units(depth / (DEVNET_USD_PRICES[a] ?? 1)),
    units((depth * skew) / (DEVNET_USD_PRICES[b] ?? 1)),
  ] as const;
  return buildStrategy({ ...params, amounts, flatFee1e9: pick(random, FLAT_FEES_1E9) });
}

/**
 * A concentrated (±0.5 % around 1:1) and a pegged (flat within ±0.2 %) pool of a stable pair, built as
 * POST /v1/positions builds them (chain/strategyArgs.ts): the devnet's catalogue shows and trades every
 * kind. `salts` are their own (not the pools' counter), so the seeded pools keep their hashes.
 */
export function kindStrategies(params: {
  maker: Address;
  symbols: readonly [string, string];
  tokens: readonly [Address, Address];
  amounts: readonly [bigint, bigint];
  feeReceiver: Address;
  salts: readonly [bigint, bigint];
}): LiveStrategy[] {
  const firstIsLt = params.tokens[0].toLowerCase() < params.tokens[1].toLowerCase();
  const pair = { lt: TOKEN_DECIMALS, gt: TOKEN_DECIMALS, firstIsLt };
  const [amountLt, amountGt] = firstIsLt ? params.amounts : [params.amounts[1], params.amounts[0]];
  const common = { ...params, flatFee1e9: 0 };
  return [
    buildStrategy({
      ...common,
      salt: params.salts[0],
      curve: [
        encodeInstruction('XYCConcentrateGrowLiquidity2D', concentratedRange('0.995', '1.005', pair)),
        xycSwap(),
      ],
    }),
    buildStrategy({
      ...common,
      salt: params.salts[1],
      curve: [
        encodeInstruction('PeggedSwapGrowPriceRange2D', { ...peggedArgs(amountLt, amountGt, pair, 0.2) }),
      ],
    }),
  ];
}

/** A modest taker input in USD terms (5 to ~500 USD), in base units of the token. */
export function randomSwapAmount(random: Random, symbol: string): bigint {
  const usd = 5 + random() ** 2 * 495;
  return units(usd / (DEVNET_USD_PRICES[symbol] ?? 1));
}

/** 2100-01-01: a Deadline that does not expire while the devnet runs. */
const FAR_DEADLINE = 4_102_444_800n;

/**
 * Strategies a real maker could ship with instructions beyond the canonical program: not traded by the
 * devnet (its router runs only the canonical instructions; devnet/discover.ts leaves them out), shipped
 * so the catalogue shows them decoded. `branches`: Deadline and a taker guard, the protocol fee, then a
 * JumpIfTokenIn to a PeggedSwap curve for one direction, and Decay → XYCConcentrate → flat fee → XYCSwap
 * for the other, jumping over the pegged curve to the Salt. `unreadable`: a swap, then an opcode outside
 * the router table, a flat fee with short args, a salt, and a Deadline cut off by the end of the bytes.
 */
export function showcaseStrategies(params: {
  maker: Address;
  symbols: readonly [string, string];
  tokens: readonly [Address, Address];
  amounts: readonly [bigint, bigint];
  feeReceiver: Address;
  nextSalt: () => bigint;
}): { branches: LiveStrategy; unreadable: LiveStrategy } {
  const [tokenA, tokenB] = params.tokens;
  const head = [
    deadline(FAR_DEADLINE),
    encodeInstruction('OnlyTakerTokenBalanceNonZero', { token: tokenA }),
    aquaProtocolFeeAmountIn(PROTOCOL_FEE_1E9, params.feeReceiver),
  ];
  const jumpIfTokenIn = (nextPC: bigint) => encodeInstruction('JumpIfTokenIn', { token: tokenB, nextPC });
  const xyc = [
    encodeInstruction('Decay', { period: 300n }),
    encodeInstruction('XYCConcentrateGrowLiquidity2D', {
      sqrtPriceMin: 950_000_000_000_000_000n,
      sqrtPriceMax: 1_050_000_000_000_000_000n,
    }),
    flatFeeAmountIn(1_000_000),
    xycSwap(),
  ];
  const jump = (nextPC: bigint) => encodeInstruction('Jump', { nextPC });
  const pegged = encodeInstruction('PeggedSwapGrowPriceRange2D', {
    x0: params.amounts[0],
    y0: params.amounts[1],
    linearWidth: 100n * 10n ** 27n,
    rateLt: 1n,
    rateGt: 1n,
  });
  // Jump targets are byte offsets; the jumps' own widths do not depend on their targets.
  const peggedAt = BigInt(size(concat([...head, jumpIfTokenIn(0n), ...xyc, jump(0n)])));
  const saltAt = peggedAt + BigInt(size(pegged));
  const branches = buildProgram([
    ...head,
    jumpIfTokenIn(peggedAt),
    ...xyc,
    jump(saltAt),
    pegged,
    salt(params.nextSalt()),
  ]);
  const unreadable = buildProgram([
    xycSwap(),
    '0x4001ff',
    '0x15020001',
    salt(params.nextSalt()),
    '0x0d050000',
  ]);
  const strategyOf = (data: Hex): LiveStrategy => {
    const order: Order = { maker: params.maker, traits: AQUA_TRAITS, data };
    const strategy = encodeStrategy(order);
    const { maker, symbols, tokens, amounts } = params;
    return {
      maker,
      symbols,
      tokens,
      amounts,
      flatFee1e9: 0,
      order,
      strategy,
      hash: strategyHashOf(strategy),
      pilot: false,
    };
  };
  return { branches: strategyOf(branches), unreadable: strategyOf(unreadable) };
}
