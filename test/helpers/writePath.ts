/**
 * The write path's test bench on the devnet, as the e2e suites of positions, lifecycle (and whatever
 * signs and sends prepared transactions) need it: three anvils with our contracts and an idle bot, a
 * counting RPC proxy in front of base that the gateway reaches base through, the gateway on a fresh
 * database with its own indexer off, an indexer the test drives (`syncNow`) on the chains directly,
 * and wallets that sign locally and wait for their receipts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type Account,
  type Address,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  type TransactionReceipt,
} from 'viem';
import { erc20Abi } from '../../chain/abi.js';
import { type ChainClient, createChainClient, viemChainOf } from '../../chain/clients.js';
import { ChainRegistry } from '../../chain/registry.js';
import type { Devnet } from '../../devnet/devnet.js';
import { type Indexer, startIndexer } from '../../indexer/index.js';
import type { ChainConfig } from '../../lib/config.js';
import { startSeededDevnet } from './devnetSnapshot.js';
import { type RpcProxy, startRpcProxy } from './rpcProxy.js';
import { startTestService, type TestService } from './service.js';

/** anvil's default mnemonic (devnet/seed.ts): index 9 is unused by the devnet, index 10 is unfunded. */
export const MNEMONIC = 'test test test test test test test test test test test junk';
/** The devnet tokens have 6 decimals. */
export const UNIT = 1_000_000n;

/** A prepared transaction as the API answers it. */
export interface Tx {
  step: number;
  purpose: string;
  to: Address;
  value: string;
  data: Hex;
  description: string;
}

export interface WritePath {
  devnet: Devnet;
  base: ChainConfig;
  proxy: RpcProxy;
  svc: TestService;
  indexer: Indexer;
  /** A client of base, straight to the anvil. */
  chain: ChainClient;
  /** A devnet token's address on base. */
  token(symbol: string): Address;
  /** Signs locally and sends as the integrator's wallet would; throws unless the receipt is a success. */
  send(account: Account, tx: { to: Address; data: Hex; value?: bigint }): Promise<TransactionReceipt>;
  /** The API's transactions in step order, one after the other. */
  sendAll(account: Account, txs: readonly Tx[]): Promise<void>;
  stop(): Promise<void>;
}

/** Calldata of the devnet TestToken's open `mint`. */
export const mintCalldata = (to: Address, amount: bigint): Hex =>
  encodeFunctionData({ abi: erc20Abi, functionName: 'mint', args: [to, amount] });

export async function startWritePath(options: {
  /** The devnet's first anvil port (three in a row). */
  basePort: number;
  proxyPort: number;
  /** Names the temporary data folder. */
  name: string;
  /** More environment of the gateway. */
  env?: Record<string, string>;
}): Promise<WritePath> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `${options.name}-`));
  /** What has started, stopped in reverse order (also when a later part fails to start). */
  const started: (() => Promise<void>)[] = [async () => rmSync(dataDir, { recursive: true, force: true })];
  const stop = async () => {
    for (const part of started.splice(0).reverse()) await part();
  };
  try {
    const devnet = await startSeededDevnet({ basePort: options.basePort, dataDir, activityMs: 0 });
    started.push(() => devnet.stop());
    const base = devnet.chains.find((c) => c.key === 'base')!;
    const proxy = await startRpcProxy({ port: options.proxyPort, mode: 'forward', target: base.rpcUrl });
    started.push(() => proxy.stop());
    const gatewayChains = devnet.chains.map((c) => (c.key === 'base' ? { ...c, rpcUrl: proxy.url } : c));
    const svc = await startTestService({ chains: gatewayChains, env: { INDEXER: 'off', ...options.env } });
    started.push(() => svc.stop());
    const indexer = await startIndexer(
      { ...svc.services, registry: new ChainRegistry(devnet.chains) },
      { background: false },
    );
    started.push(() => indexer.stop());
    return assemble({ devnet, base, proxy, svc, indexer, stop });
  } catch (error) {
    await stop();
    throw error;
  }
}

function assemble(
  parts: Pick<WritePath, 'devnet' | 'base' | 'proxy' | 'svc' | 'indexer' | 'stop'>,
): WritePath {
  const { base } = parts;
  const chain = createChainClient(base, { rpcTimeoutMs: 10_000 });

  const send: WritePath['send'] = async (account, tx) => {
    const wallet = createWalletClient({ account, chain: viemChainOf(base), transport: http(base.rpcUrl) });
    const hash = await wallet.sendTransaction({ to: tx.to, data: tx.data, value: tx.value ?? 0n });
    const receipt = await chain.waitForTransactionReceipt({ hash, timeout: 15_000 });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} to ${tx.to} reverted`);
    return receipt;
  };

  return {
    ...parts,
    chain,
    token: (symbol) => base.tokens.find((t) => t.symbol === symbol)!.address as Address,
    send,
    async sendAll(account, txs) {
      for (const tx of txs) await send(account, { to: tx.to, data: tx.data, value: BigInt(tx.value) });
    },
  };
}
