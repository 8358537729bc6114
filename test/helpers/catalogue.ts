import type { Address, Hex } from 'viem';
import { AQUA_TRAITS, decodeStrategy, encodeStrategy, strategyHashOf } from '../../chain/order.js';
import { aquaProtocolFeeAmountIn, buildProgram, decodeProgram, salt, xycSwap } from '../../chain/program.js';
import type { StrategyRow } from '../../indexer/batch.js';
import type { ChainConfig, TokenConfig } from '../../lib/config.js';
import type { Db } from '../../store/db.js';

/**
 * Catalogue rows written straight into a test database, the way the indexer stores them, for suites
 * of the read endpoints that must not depend on the indexer.
 */

const addr = (n: number): Address => `0x${n.toString(16).padStart(40, '0')}` as Address;

/**
 * Chains with the registry shape the devnet manifest has (RPC never called by the read paths): base
 * and arc, plus baseSepolia when three are asked for.
 */
export function fixtureChains(count: 2 | 3 = 2): ChainConfig[] {
  const chain = (key: string, chainId: number, name: string, base: number): ChainConfig => ({
    key,
    chainId,
    name,
    rpcUrl: `http://127.0.0.1:9/${key}`,
    aqua: addr(base + 1),
    router: addr(base + 2),
    multicall: addr(base + 3),
    feeReceiver: addr(base + 4),
    testnet: false,
    startBlock: 0,
    tokens: [
      { symbol: 'USDC', address: addr(base + 0x10), decimals: 6, usd: 1 },
      { symbol: 'USDT', address: addr(base + 0x11), decimals: 6, usd: 1 },
      // A fixed price of its own, as a chains file may give it (the devnet reads a feed instead).
      { symbol: 'EURC', address: addr(base + 0x12), decimals: 6, usd: 1.08 },
    ],
  });
  const chains = [chain('base', 8453, 'Base', 0x1000), chain('arc', 5042, 'Arc', 0x2000)];
  if (count === 3) chains.push({ ...chain('baseSepolia', 84532, 'Base Sepolia', 0x3000), testnet: true });
  return chains;
}

export interface FixtureStrategy {
  chain: ChainConfig;
  symbols: [string, string];
  maker?: Address;
  status?: 'active' | 'docked';
  shippedAt: Date | string;
  volumeUsd?: number;
  swapCount?: number;
  salt: bigint;
  /** Shipped bytes; by default a fee + XYCSwap + salt program of the maker. */
  strategy?: Hex;
}

export interface StoredFixture {
  hash: string;
  chain: string;
  pair: string;
  status: 'active' | 'docked';
  strategy: Hex;
}

export function strategyBytes(maker: Address, saltValue: bigint, feeReceiver: Address): Hex {
  const data = buildProgram([aquaProtocolFeeAmountIn(500_000, feeReceiver), xycSwap(), salt(saltValue)]);
  return encodeStrategy({ maker, traits: AQUA_TRAITS, data });
}

export async function insertStrategy(db: Db, s: FixtureStrategy): Promise<StoredFixture> {
  const maker = (s.maker ?? addr(0xabc0 + Number(s.salt % 7n))).toLowerCase() as Address;
  const strategy = s.strategy ?? strategyBytes(maker, s.salt, s.chain.feeReceiver as Address);
  const hash = strategyHashOf(strategy);
  const tokens = s.symbols.map((symbol) => s.chain.tokens.find((t) => t.symbol === symbol)!);
  const [a, b] = [...tokens].sort((x, y) => (x.address.toLowerCase() < y.address.toLowerCase() ? -1 : 1)) as [
    (typeof tokens)[0],
    (typeof tokens)[0],
  ];
  const pair = [a.symbol, b.symbol].sort().join('/');
  const status = s.status ?? 'active';
  const shippedAt = typeof s.shippedAt === 'string' ? s.shippedAt : s.shippedAt.toISOString();
  const program = JSON.stringify(decodeProgram(decodeStrategy(strategy)?.data ?? '0x'), (_k, v: unknown) =>
    typeof v === 'bigint' ? v.toString() : v,
  );
  await db.query(
    `INSERT INTO strategies (chain_key, strategy_hash, maker, app, strategy, traits, program, token_a, token_b,
       symbol_a, symbol_b, decimals_a, decimals_b, pair_key, tokens, initial_a, initial_b, balance_a, balance_b,
       status, shipped_block, shipped_tx, shipped_at, docked_block, docked_at, volume_usd, swap_count, last_swap_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
       $23, $24, $25, $26, $27, $28)`,
    [
      s.chain.key,
      hash,
      maker,
      s.chain.router.toLowerCase(),
      strategy,
      AQUA_TRAITS.toString(),
      program,
      a.address.toLowerCase(),
      b.address.toLowerCase(),
      a.symbol,
      b.symbol,
      a.decimals,
      b.decimals,
      pair,
      // The indexer's shape (indexer/batch.ts TokenRef), in the order shipped.
      JSON.stringify(
        tokens.map((t) => ({
          address: t.address.toLowerCase(),
          symbol: t.symbol,
          decimals: t.decimals,
          amount: t === a ? '1000000000' : '2000000000',
        })),
      ),
      '1000000000',
      '2000000000',
      status === 'docked' ? '0' : '1000500000',
      status === 'docked' ? '0' : '1999000000',
      status,
      String(100 + Number(s.salt)),
      `0x${(Number(s.salt) + 1).toString(16).padStart(64, '0')}`,
      shippedAt,
      status === 'docked' ? String(200 + Number(s.salt)) : null,
      status === 'docked' ? shippedAt : null,
      s.volumeUsd ?? 0,
      s.swapCount ?? 0,
      s.swapCount ? shippedAt : null,
    ],
  );
  return { hash, chain: s.chain.key, pair, status, strategy };
}

export async function insertSwap(
  db: Db,
  s: {
    chain: string;
    hash: string;
    maker: string;
    tokenIn: string;
    tokenOut: string;
    block: number;
    at: string;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO swaps (chain_key, tx_hash, log_index, block_number, block_time, strategy_hash, maker, taker, token_in,
       token_out, amount_in, amount_out, volume_usd) VALUES ($1, $2, 0, $3, $4, $5, $6, $7, $8, $9, 1000000, 999000, 1)`,
    [
      s.chain,
      `0x${s.block.toString(16).padStart(64, '0')}`,
      s.block,
      s.at,
      s.hash,
      s.maker,
      addr(0xfeed),
      s.tokenIn,
      s.tokenOut,
    ],
  );
}

/**
 * A grid of active strategies: `perPair` of USDC/USDT and of EURC/USDC on each chain, shipped one minute
 * apart from `t0` with growing volumes (salt × 10.5 USD), so every sort and filter has a known order.
 */
export async function insertStrategyGrid(
  db: Db,
  chains: ChainConfig[],
  options: { perPair: number; t0: number; withSwaps?: boolean },
): Promise<StoredFixture[]> {
  const stored: StoredFixture[] = [];
  let salt = 1n;
  for (const chain of chains) {
    for (const symbols of [
      ['USDC', 'USDT'],
      ['EURC', 'USDC'],
    ] as [string, string][]) {
      for (let i = 0; i < options.perPair; i++) {
        stored.push(
          await insertStrategy(db, {
            chain,
            symbols,
            salt: salt++,
            shippedAt: new Date(options.t0 + Number(salt) * 60_000),
            volumeUsd: Number(salt) * 10.5,
            ...(options.withSwaps ? { swapCount: Number(salt % 3n) } : {}),
          }),
        );
      }
    }
  }
  return stored;
}

/**
 * A ship as the indexer's batch holds it (indexer/batch.ts StrategyRow), for tests that write blocks
 * through writeChunk: `data` run by `maker` on `router`, over two tokens (ordered by address here).
 */
export function shippedRow(s: {
  maker: string;
  router: string;
  data: Hex;
  tokens: [TokenConfig, TokenConfig];
  block: number;
  tx: string;
  time: string;
}): StrategyRow & { tokenA: string; tokenB: string } {
  const strategy = encodeStrategy({ maker: s.maker as Address, traits: AQUA_TRAITS, data: s.data });
  const [a, b] = [...s.tokens].sort((x, y) =>
    x.address.toLowerCase() < y.address.toLowerCase() ? -1 : 1,
  ) as [TokenConfig, TokenConfig];
  return {
    hash: strategyHashOf(strategy).toLowerCase(),
    maker: s.maker,
    app: s.router,
    strategy,
    traits: AQUA_TRAITS.toString(),
    program: JSON.stringify(decodeProgram(s.data), (_k, v: unknown) =>
      typeof v === 'bigint' ? v.toString() : v,
    ),
    tokenA: a.address.toLowerCase(),
    tokenB: b.address.toLowerCase(),
    symbolA: a.symbol,
    symbolB: b.symbol,
    decimalsA: a.decimals,
    decimalsB: b.decimals,
    pairKey: [a.symbol, b.symbol].sort().join('/'),
    tokens: JSON.stringify([]),
    initialA: '0',
    initialB: '0',
    block: s.block,
    tx: s.tx,
    time: s.time,
  };
}
