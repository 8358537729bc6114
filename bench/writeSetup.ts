/**
 * The set-up of the write-path benches (swap and dock), shared by bench/swap.ts (sequential,
 * in-process service) and bench/all.ts (under load, the service a process of its own): on the devnet's
 * base chain, an open USDC/USDT strategy of the verified router to swap against, a taker that holds what
 * it sells, and positions prepared through the API and shipped by a maker wallet, to dock. Devnet
 * tooling: the wallets sign here, never the service.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { type Address, createWalletClient, encodeFunctionData, type Hex, http as viemHttp } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { erc20Abi } from '../chain/abi.js';
import { createChainClient, viemChainOf } from '../chain/clients.js';
import { startDevnet } from '../devnet/devnet.js';
import { type ChainConfig, loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { startService } from '../service.js';
import { createTestDatabase } from '../test/helpers/postgres.js';

const MNEMONIC = 'test test test test test test test test test test test junk';
/** Index 9 is not used by the devnet: the maker of the docked positions; index 8 the taker. */
const maker = mnemonicToAccount(MNEMONIC, { addressIndex: 9 });
export const TAKER: Address = mnemonicToAccount(MNEMONIC, { addressIndex: 8 }).address;

/** The body of POST /v1/swaps: the taker sells 1 USDC against `hash`. */
export function swapBody(hash: string): string {
  return JSON.stringify({
    chain: 'base',
    hash,
    wallet: TAKER,
    amount: '1000000',
    direction: 'aToB',
    slippageBps: 50,
  });
}

/**
 * An open USDC/USDT strategy of base's verified router, or undefined before the indexer stored one.
 * The earliest shipped: strategies stored without a chain behind them (bench/all.ts's fillers, at
 * block 9,000,100 and later) come after the devnet's.
 */
export async function openStrategyHash(
  db: pg.Pool | pg.Client,
  base: ChainConfig,
): Promise<string | undefined> {
  const { rows } = await db.query<{ strategy_hash: string }>(
    `SELECT strategy_hash FROM strategies
      WHERE chain_key = 'base' AND app = $1 AND pair_key = 'USDC/USDT' AND status = 'active'
      ORDER BY shipped_block, strategy_hash LIMIT 1`,
    [base.router.toLowerCase()],
  );
  return rows[0]?.strategy_hash;
}

/** The maker's and taker's side of the devnet's base chain. */
export function writeWallets(base: ChainConfig) {
  const chain = createChainClient(base, { rpcTimeoutMs: 10_000 });
  const wallet = createWalletClient({
    account: maker,
    chain: viemChainOf(base),
    transport: viemHttp(base.rpcUrl),
  });
  const send = async (tx: { to: Address; data: Hex }) => {
    const receipt = await chain.waitForTransactionReceipt({ hash: await wallet.sendTransaction(tx) });
    if (receipt.status !== 'success') throw new Error(`transaction to ${tx.to} reverted`);
  };
  return {
    /** The maker wallet (anvil's account 9) and its sender: signs, sends, throws on a revert. */
    maker: maker.address,
    send,
    /** The taker holds what it sells (the devnet's test tokens mint to anyone), so no swap is refused. */
    async fundTaker(): Promise<void> {
      for (const token of base.tokens) {
        const data = encodeFunctionData({
          abi: erc20Abi,
          functionName: 'mint',
          args: [TAKER, 1_000_000_000n],
        });
        await send({ to: token.address as Address, data });
      }
    },
    /**
     * A position of `key`, prepared through the API (POST /v1/positions) and shipped by the maker wallet
     * as an integrator would; its id. Docked only once the indexer has seen it shipped.
     */
    async shipPosition(serviceUrl: string, key: string): Promise<string> {
      const res = await fetch(`${serviceUrl}/v1/positions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({
          chain: 'base',
          wallet: maker.address,
          deposits: [
            { symbol: 'USDC', amount: '1000000' },
            { symbol: 'USDT', amount: '1000000' },
          ],
          includeApprovals: false,
        }),
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`prepare answered ${res.status}: ${text}`);
      const p = JSON.parse(text) as {
        data: { strategyHash: string; transactions: { to: Address; data: Hex }[] };
      };
      // The ship step; its `value` is a decimal string, not what viem takes (and zero anyway).
      const ship = p.data.transactions.at(-1)!;
      await send({ to: ship.to, data: ship.data });
      return p.data.strategyHash;
    },
  };
}

/**
 * The in-process service of the sequential write benches over a fresh devnet (activity bot idle) and a
 * fresh database, the indexer off; `stop` ends all three and removes the devnet's data folder.
 */
export async function startWriteBench(name: string, basePort: number, env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), `bench-${name}-`));
  const database = await createTestDatabase();
  const devnet = await startDevnet({ basePort, dataDir, activityMs: 2_000_000_000 });
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    INDEXER: 'off',
    DATABASE_URL: database.url,
    INTERNAL_TOKEN: 'bench-internal-token-0123456789',
    ...env,
  });
  const service = await startService(config, { chains: devnet.chains, logger: createLogger('silent') });
  return {
    devnet,
    service,
    async stop(): Promise<void> {
      await service.stop();
      await devnet.stop();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
