/**
 * The default mode shows a position's whole lifecycle: the activity bot swaps strategies shipped by
 * any wallet (found from Aqua's logs), and the devnet keeps its chains across a restart on the same
 * DATA_DIR (anvil --state), so nothing is seeded again and a filled position stays filled.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type Address,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  maxUint256,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aquaAbi, erc20Abi, routerAbi } from '../../chain/abi.js';
import { approveCalldata, shipCalldata } from '../../chain/calldata.js';
import { AQUA_TRAITS, encodeStrategy, strategyHashOf } from '../../chain/order.js';
import {
  aquaProtocolFeeAmountIn,
  buildProgram,
  PROTOCOL_FEE_1E9,
  salt,
  xycSwap,
} from '../../chain/program.js';
import { type Devnet, startDevnet } from '../../devnet/devnet.js';
import { stateFileOf } from '../../devnet/persist.js';
import type { ChainConfig } from '../../lib/config.js';
import { testPort } from '../helpers/ports.js';

const BASE_PORT = testPort(18755);
const ACTIVITY_MS = 300;
const UNIT = 1_000_000n;
/** anvil's first default account: the devnet's deployer (devnet/seed.ts roles). */
const DEPLOYER = mnemonicToAccount('test test test test test test test test test test test junk').address;

let devnet: Devnet | undefined;
let dataDir: string;

const clientOf = (chain: ChainConfig): PublicClient =>
  createPublicClient({ transport: http(chain.rpcUrl), pollingInterval: 50 }) as PublicClient;
const chainOf = (key: string) => devnet!.chains.find((c) => c.key === key)!;

async function swapsOf(chain: ChainConfig, orderHash: Hex): Promise<number> {
  const logs = await clientOf(chain).getContractEvents({
    address: chain.router as Address,
    abi: routerAbi,
    eventName: 'Swapped',
    fromBlock: 0n,
  });
  return logs.filter((l) => l.args.orderHash === orderHash).length;
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'devnet-lifecycle-'));
  const started = performance.now();
  devnet = await startDevnet({ basePort: BASE_PORT, dataDir, activityMs: ACTIVITY_MS });
  process.stderr.write(
    `fresh devnet (deployed and seeded) ready in ${Math.round(performance.now() - started)} ms\n`,
  );
}, 120_000);

afterAll(async () => {
  await devnet?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('devnet lifecycle', () => {
  let newcomer: { chain: ChainConfig; hash: Hex; maker: Address };

  it('swaps a strategy shipped by a fresh wallet within a few activity ticks', async () => {
    const chain = chainOf('base');
    const client = clientOf(chain);
    const account = privateKeyToAccount(generatePrivateKey());
    const wallet = createWalletClient({ account, transport: http(chain.rpcUrl) });
    await client.request({
      method: 'anvil_setBalance' as never,
      params: [account.address, `0x${(10n ** 19n).toString(16)}`] as never,
    });
    const [usdc, eurc] = ['USDC', 'EURC'].map(
      (s) => chain.tokens.find((t) => t.symbol === s)!.address as Address,
    ) as [Address, Address];
    const send = async (to: Address, data: Hex) => {
      const hash = await wallet.sendTransaction({ to, data, chain: null });
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      expect(receipt.status).toBe('success');
    };
    for (const token of [usdc, eurc]) {
      await send(
        token,
        encodeFunctionData({ abi: erc20Abi, functionName: 'mint', args: [account.address, 10_000n * UNIT] }),
      );
      await send(token, approveCalldata(chain.aqua as Address, maxUint256));
    }
    const order = {
      maker: account.address,
      traits: AQUA_TRAITS,
      data: buildProgram([
        aquaProtocolFeeAmountIn(PROTOCOL_FEE_1E9, chain.feeReceiver as Address),
        xycSwap(),
        salt(7n),
      ]),
    };
    const strategy = encodeStrategy(order);
    const hash = strategyHashOf(strategy);
    await send(
      chain.aqua as Address,
      shipCalldata({
        app: chain.router as Address,
        strategy,
        tokens: [usdc, eurc],
        amounts: [1_000n * UNIT, 920n * UNIT],
      }),
    );
    const shippedAt = Date.now();
    // The next tick discovers it and swaps it first; allow for a busy machine.
    const deadline = shippedAt + ACTIVITY_MS * 10 + 10_000;
    let swaps = 0;
    while (swaps === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, ACTIVITY_MS));
      swaps = await swapsOf(chain, hash);
    }
    expect(swaps).toBeGreaterThan(0);
    newcomer = { chain, hash, maker: account.address };
    process.stderr.write(`newcomer swapped ${Date.now() - shippedAt} ms after its ship\n`);
  }, 60_000);

  it('keeps its chains across a restart on the same DATA_DIR: same genesis and blocks, no new seed', async () => {
    expect(newcomer).toBeDefined();
    const before = await Promise.all(
      devnet!.chains.map(async (chain) => {
        const client = clientOf(chain);
        const blockNumber = await client.getBlockNumber({ cacheTime: 0 });
        const [genesis, head] = await Promise.all([
          client.getBlock({ blockNumber: 0n }),
          client.getBlock({ blockNumber }),
        ]);
        const nonce = await client.getTransactionCount({ address: DEPLOYER });
        return { chain, blockNumber, genesis: genesis.hash, head: head.hash, deployer: DEPLOYER, nonce };
      }),
    );
    const swapsBefore = await swapsOf(newcomer.chain, newcomer.hash);
    await devnet!.stop();
    for (const chain of devnet!.chains) expect(existsSync(stateFileOf(dataDir, chain.key))).toBe(true);

    const started = performance.now();
    devnet = await startDevnet({ basePort: BASE_PORT, dataDir, activityMs: ACTIVITY_MS });
    process.stderr.write(`restored devnet ready in ${Math.round(performance.now() - started)} ms\n`);
    for (const b of before) {
      const chain = chainOf(b.chain.key);
      expect({ ...chain, rpcUrl: '' }).toEqual({ ...b.chain, rpcUrl: '' });
      const client = clientOf(chain);
      const [genesis, head] = await Promise.all([
        client.getBlock({ blockNumber: 0n }),
        client.getBlock({ blockNumber: b.blockNumber }),
      ]);
      expect(genesis.hash, chain.key).toBe(b.genesis);
      expect(head.hash, chain.key).toBe(b.head);
      // The seed deploys from the deployer first: its nonce did not move.
      expect(await client.getTransactionCount({ address: b.deployer })).toBe(b.nonce);
    }
    const client = clientOf(newcomer.chain);
    const [, tokensCount] = await client.readContract({
      address: newcomer.chain.aqua as Address,
      abi: aquaAbi,
      functionName: 'rawBalances',
      args: [
        newcomer.maker,
        newcomer.chain.router as Address,
        newcomer.hash,
        newcomer.chain.tokens[0]!.address as Address,
      ],
    });
    expect(tokensCount).toBe(2);
    expect(await swapsOf(newcomer.chain, newcomer.hash)).toBeGreaterThanOrEqual(swapsBefore);

    // And the bot carries on against the restored strategies.
    const chain = chainOf('arc');
    const count = async () =>
      (
        await clientOf(chain).getContractEvents({
          address: chain.router as Address,
          abi: routerAbi,
          eventName: 'Swapped',
          fromBlock: 0n,
        })
      ).length;
    const initial = await count();
    const deadline = Date.now() + ACTIVITY_MS * 15 + 10_000;
    let now = initial;
    while (now === initial && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, ACTIVITY_MS));
      now = await count();
    }
    expect(now).toBeGreaterThan(initial);
  }, 120_000);
});
