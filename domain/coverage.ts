/**
 * Coverage of a wallet (PROTOCOL.md "Allowances, ship and dock"): one allowance to Aqua per token serves
 * every strategy of the wallet, and every swap's pull uses it up. A wallet covers a token when its
 * allowance to Aqua and its balance both reach the sum of that token's live virtual balances
 * (`rawBalances`) over its active strategies. Read live: the strategies from the catalogue (kept by
 * this process until a change to them is announced: store/walletStrategies.ts), then every allowance,
 * balance and virtual balance in ONE multicall round trip.
 */
import type { Abi, Address, Hex } from 'viem';
import { aquaAbi } from '../chain/abi.js';
import type { ChainConfig, TokenConfig } from '../lib/config.js';
import { activeStrategiesOfMaker } from '../store/walletStrategies.js';
import { erc20Read, upstream } from './chainReads.js';
import type { ReadContext } from './readContext.js';

/** Aqua's tokensCount: 0 never shipped, 1..254 active, 0xFF docked. */
const DOCKED = 0xff;

export interface TokenCoverage {
  token: TokenConfig;
  allowance: bigint;
  /** Null when balances were not asked for. */
  balance: bigint | null;
  /** Sum of the token's live virtual balances over the wallet's active strategies. */
  committed: bigint;
  /** The virtual balance of `own` (the position asked about) alone; 0 when it is not active. */
  own: bigint;
}

export interface Coverage {
  tokens: TokenCoverage[];
  /** Active strategies of the wallet counted (on chain and in the catalogue). */
  strategies: number;
  /** The own strategy's tokensCount state on chain, when `own` was given. */
  ownState: 'active' | 'docked' | 'unknown' | null;
}

function rawBalanceRead(
  ctx: ReadContext,
  chain: ChainConfig,
  args: readonly [Address, Address, Hex, Address],
): Promise<readonly [bigint, number]> {
  return ctx.loaders.multicall.load({
    chain: chain.key,
    address: chain.aqua as Address,
    abi: aquaAbi as Abi,
    functionName: 'rawBalances',
    args,
  }) as Promise<readonly [bigint, number]>;
}

const stateOf = (count: number): Coverage['ownState'] =>
  count === 0 ? 'unknown' : count === DOCKED ? 'docked' : 'active';

export async function readCoverage(
  ctx: ReadContext,
  params: {
    chain: ChainConfig;
    wallet: Address;
    tokens: readonly TokenConfig[];
    balances: boolean;
    /** The position asked about: its own virtual balances (and its state) are read even if the catalogue has not seen it. */
    own?: { hash: string; app: string };
  },
): Promise<Coverage> {
  const { chain, wallet, tokens } = params;
  const aqua = chain.aqua as Address;
  const addresses = tokens.map((t) => t.address.toLowerCase());
  const { db, makerStrategies } = ctx.services;
  const rows = await activeStrategiesOfMaker(db, chain.key, wallet, addresses, makerStrategies);
  const strategies = rows.filter((r) => r.strategy_hash !== params.own?.hash);
  if (params.own) strategies.push({ strategy_hash: params.own.hash, app: params.own.app, tokens: addresses });
  try {
    // Every read is loaded in this tick: the loader sends them as one aggregate3 eth_call.
    const allowances = tokens.map((t) => erc20Read(ctx, chain, t, 'allowance', [wallet, aqua]));
    const balances = params.balances
      ? tokens.map((t) => erc20Read(ctx, chain, t, 'balanceOf', [wallet]))
      : [];
    const virtual = strategies.map((s) =>
      tokens.map((t) =>
        s.tokens.includes(t.address.toLowerCase())
          ? rawBalanceRead(ctx, chain, [
              wallet,
              s.app as Address,
              s.strategy_hash as Hex,
              t.address as Address,
            ])
          : Promise.resolve([0n, 0] as const),
      ),
    );
    const [allowance, balance, raw] = await Promise.all([
      Promise.all(allowances),
      Promise.all(balances),
      Promise.all(virtual.map((reads) => Promise.all(reads))),
    ]);
    const ownIndex = params.own ? strategies.length - 1 : -1;
    const live = (count: number) => count > 0 && count < DOCKED;
    return {
      tokens: tokens.map((token, i) => ({
        token,
        allowance: allowance[i]!,
        balance: params.balances ? balance[i]! : null,
        committed: raw.reduce((sum, r) => sum + (live(r[i]![1]) ? r[i]![0] : 0n), 0n),
        own: ownIndex >= 0 && live(raw[ownIndex]![i]![1]) ? raw[ownIndex]![i]![0] : 0n,
      })),
      strategies: raw.filter((r) => r.some(([, count]) => live(count))).length,
      ownState: ownIndex >= 0 ? stateOf(raw[ownIndex]![0]![1]) : null,
    };
  } catch (error) {
    throw upstream(error, chain.key);
  }
}
