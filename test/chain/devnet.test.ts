import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Abi, type Address, getAddress, type Hex, parseAbi, parseEventLogs } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aquaAbi, erc20Abi, routerAbi } from '../../chain/abi.js';
import {
  type ChainClient,
  classifyRpcError,
  createChainClient,
  createChainClients,
} from '../../chain/clients.js';
import { decodeStrategy, isPlainAquaOrder } from '../../chain/order.js';
import { decodeProgram } from '../../chain/program.js';
import { ChainRegistry } from '../../chain/registry.js';
import type { Devnet } from '../../devnet/devnet.js';
import { spawnDevnet } from '../../devnet/process.js';
import { DEPLOYED_AQUA, DEPLOYED_ROUTER, presetOf } from '../../lib/chainPresets.js';
import { type ChainConfig, readChainsFile } from '../../lib/chains.js';
import { ApiError } from '../../lib/errors.js';
import { Metrics } from '../../lib/metrics.js';
import { type ContractRead, createMulticallLoader } from '../../loaders/multicall.js';
import { testPort } from '../helpers/ports.js';

const BASE_PORT = testPort(18745);
const PORTS = [BASE_PORT, BASE_PORT + 1, BASE_PORT + 2];
const ACTIVITY_MS = 300;

let devnet: Devnet | undefined;
let dataDir: string;
let registry: ChainRegistry;
let clients: ReturnType<typeof createChainClients>;

function anvilProcesses(): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  const pattern = new RegExp(`anvil .*--port (${PORTS.join('|')})\\b`);
  return out.split('\n').filter((line) => pattern.test(line));
}

async function swapCount(chain: ChainConfig): Promise<number> {
  const logs = await clients.get(chain.key).getContractEvents({
    address: chain.router as Address,
    abi: routerAbi,
    eventName: 'Swapped',
    fromBlock: 0n,
  });
  return logs.length;
}

beforeAll(async () => {
  expect(anvilProcesses()).toEqual([]);
  dataDir = mkdtempSync(path.join(tmpdir(), 'devnet-test-'));
  devnet = await spawnDevnet({ basePort: BASE_PORT, dataDir, activityMs: ACTIVITY_MS, logLevel: 'warn' });
  registry = new ChainRegistry(devnet.chains);
  clients = createChainClients(registry, { rpcTimeoutMs: 5000 });
});

afterAll(async () => {
  await devnet?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('devnet', () => {
  it('writes a manifest in the chains-file shape', () => {
    const chains = readChainsFile(devnet!.manifestPath);
    expect(devnet!.manifestPath).toBe(path.join(dataDir, 'devnet', 'manifest.json'));
    expect(chains).toEqual(devnet!.chains);
    expect(chains.map((c) => [c.key, c.chainId, c.testnet])).toEqual([
      ['base', 8453, false],
      ['arc', 5042, false],
      ['baseSepolia', 84532, true],
    ]);
    const symbols = Object.fromEntries(chains.map((c) => [c.key, c.tokens.map((t) => t.symbol)]));
    expect(symbols).toEqual({
      base: ['USDC', 'USDT', 'EURC'],
      arc: ['USDC', 'USDT', 'EURC'],
      baseSepolia: ['USDC', 'USDT'],
    });
    for (const chain of chains) {
      expect(chain.rpcUrl).toBe(`http://127.0.0.1:${PORTS[chains.indexOf(chain)]}`);
      expect(chain.startBlock).toBe(0);
      expect(chain.pilot === undefined).toBe(chain.key !== 'baseSepolia');
    }
    const pilot = registry.require('baseSepolia').pilot!;
    const wallets = [pilot.maker, pilot.taker, pilot.feeWallet, registry.require('baseSepolia').feeReceiver];
    expect(new Set(wallets.map((w) => w.toLowerCase())).size).toBe(4);
  });

  it('places Aqua, the router, Multicall3 and the preset tokens at the deployed addresses', async () => {
    for (const chain of devnet!.chains) {
      const preset = presetOf(chain.key)!;
      expect([chain.aqua, chain.router, chain.multicall]).toEqual(
        [DEPLOYED_AQUA, DEPLOYED_ROUTER, preset.multicall].map((a) => getAddress(a)),
      );
      for (const token of preset.tokens) {
        expect(registry.token(chain.key, token.symbol)?.address).toBe(getAddress(token.address));
      }
      const client = clients.get(chain.key);
      // The router's immutable names Aqua at its deployed address; a placed token kept its storage.
      const aqua = await client.readContract({
        address: chain.router as Address,
        abi: parseAbi(['function AQUA() view returns (address)']),
        functionName: 'AQUA',
      });
      expect(aqua).toBe(getAddress(DEPLOYED_AQUA));
      const usdc = registry.token(chain.key, 'USDC')!;
      const [symbol, supply] = await Promise.all([
        client.readContract({ address: usdc.address as Address, abi: erc20Abi, functionName: 'symbol' }),
        client.readContract({ address: usdc.address as Address, abi: erc20Abi, functionName: 'totalSupply' }),
      ]);
      expect(symbol).toBe('USDC');
      expect(supply > 0n).toBe(true);
    }
  });

  it('ships live strategies, docks some and swaps on every chain before ready', async () => {
    for (const chain of devnet!.chains) {
      const client: ChainClient = clients.get(chain.key);
      const aqua = chain.aqua as Address;
      const router = chain.router as Address;
      // Logs and live state read at one block: the activity bot keeps shipping and docking meanwhile.
      const at = await client.getBlockNumber({ cacheTime: 0 });
      const shipped = await client.getContractEvents({
        address: aqua,
        abi: aquaAbi,
        eventName: 'Shipped',
        fromBlock: 0n,
        toBlock: at,
      });
      const docked = await client.getContractEvents({
        address: aqua,
        abi: aquaAbi,
        eventName: 'Docked',
        fromBlock: 0n,
        toBlock: at,
      });
      const swapped = await client.getContractEvents({
        address: router,
        abi: routerAbi,
        eventName: 'Swapped',
        fromBlock: 0n,
        toBlock: at,
      });
      expect(shipped.length, chain.key).toBeGreaterThanOrEqual(2);
      expect(docked.length, chain.key).toBeGreaterThanOrEqual(1);
      expect(swapped.length, chain.key).toBeGreaterThanOrEqual(1);

      const hashes = new Set<Hex>();
      const kindOf = new Map<Hex, string>();
      for (const log of shipped) {
        const { maker, app, strategyHash, strategy } = log.args;
        expect(app).toBe(router);
        const order = decodeStrategy(strategy!);
        expect(order).not.toBeNull();
        expect(order!.maker).toBe(maker);
        expect(isPlainAquaOrder(order!)).toBe(true);
        hashes.add(strategyHash!);
        const names = decodeProgram(order!.data).map((i) => i.name);
        kindOf.set(
          strategyHash!,
          names.includes('PeggedSwapGrowPriceRange2D')
            ? 'pegged'
            : names.includes('XYCConcentrateGrowLiquidity2D')
              ? 'concentrated'
              : 'xyc',
        );
      }
      for (const log of swapped) expect(hashes.has(log.args.orderHash!)).toBe(true);
      // A chain with the stable pair has every kind of strategy, each traded.
      if (chain.tokens.some((t) => t.symbol === 'USDT')) {
        const traded = new Set(swapped.map((log) => kindOf.get(log.args.orderHash!)));
        expect([chain.key, [...traded].sort()]).toEqual([chain.key, ['concentrated', 'pegged', 'xyc']]);
      }

      // Live state through Multicall3 (the manifest's multicall): tokensCount 1..254 open, 0xFF docked.
      // Tokens are the `Pushed` logs that follow `Shipped` in the same transaction.
      const firstTokens = await Promise.all(
        shipped.map(async (log) => {
          const receipt = await client.getTransactionReceipt({ hash: log.transactionHash });
          const pushed = parseEventLogs({ abi: aquaAbi, eventName: 'Pushed', logs: receipt.logs }).filter(
            (l) => l.args.strategyHash === log.args.strategyHash,
          );
          expect(pushed.length).toBe(2);
          return pushed[0]!.args.token;
        }),
      );
      const balances = await client.multicall({
        allowFailure: false,
        blockNumber: at,
        contracts: shipped.map((log, i) => ({
          address: aqua,
          abi: aquaAbi,
          functionName: 'rawBalances' as const,
          args: [log.args.maker!, router, log.args.strategyHash!, firstTokens[i]!] as const,
        })),
      });
      const counts = balances.map(([, tokensCount]) => tokensCount);
      const dockedHashes = new Set(docked.map((l) => l.args.strategyHash));
      const live = counts.filter((c) => c > 0 && c < 0xff).length;
      expect(live, chain.key).toBeGreaterThanOrEqual(2);
      shipped.forEach((log, i) => {
        expect(counts[i] === 0xff).toBe(dockedHashes.has(log.args.strategyHash!));
      });
      for (const [balance, tokensCount] of balances)
        if (tokensCount === 2) expect(balance).toBeGreaterThan(0n);

      if (chain.pilot) {
        const pilotHash = chain.pilot.strategyHash as Hex;
        expect(hashes.has(pilotHash)).toBe(true);
        expect(dockedHashes.has(pilotHash)).toBe(false);
        expect(
          swapped.some((l) => l.args.orderHash === pilotHash && l.args.taker === chain.pilot!.taker),
        ).toBe(true);
      }
    }
  });

  it('keeps swapping: more swaps appear within a few activity ticks', async () => {
    const before = await Promise.all(devnet!.chains.map(swapCount));
    // The deadline only ends a hung test.
    const deadline = Date.now() + Math.max(ACTIVITY_MS * 15, 30_000);
    let after = before;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, ACTIVITY_MS));
      after = await Promise.all(devnet!.chains.map(swapCount));
      if (after.every((n, i) => n > before[i]!)) break;
    }
    after.forEach((n, i) => {
      expect(n, devnet!.chains[i]!.key).toBeGreaterThan(before[i]!);
    });
  });

  it('serves reads through the registry and clients', async () => {
    expect(registry.keys()).toEqual(['base', 'arc', 'baseSepolia']);
    expect(registry.byChainId(84532)?.key).toBe('baseSepolia');
    const eurc = registry.token('base', 'eurc')!;
    expect(registry.token('base', eurc.address.toLowerCase())).toEqual(eurc);
    expect(registry.tokenByAddress('base', eurc.address.toUpperCase().replace('0X', '0x'))).toEqual(eurc);
    expect(registry.token('baseSepolia', 'EURC')).toBeUndefined();
    expect(() => registry.require('ethereum')).toThrowError(ApiError);
    try {
      registry.require('ethereum');
    } catch (error) {
      expect((error as ApiError).code).toBe('UNSUPPORTED_CHAIN');
      expect((error as ApiError).issues).toEqual([
        { type: 'UNSUPPORTED_CHAIN', expected: 'base, arc, baseSepolia', actual: 'ethereum' },
      ]);
    }
    expect(() => clients.get('ethereum')).toThrowError(ApiError);
    const base = clients.get('base');
    expect(base.chain.id).toBe(8453);
    expect(await base.getChainId()).toBe(8453);
    expect(await base.getBlockNumber()).toBeGreaterThan(10n);
  });

  it('classifies RPC failures: refused → UPSTREAM_UNAVAILABLE, silent → UPSTREAM_TIMEOUT, revert → null', async () => {
    const template = registry.require('base');
    const dead = createChainClient({ ...template, rpcUrl: 'http://127.0.0.1:9' }, { rpcTimeoutMs: 1000 });
    const refused = await dead.getBlockNumber().catch((e: unknown) => e);
    expect(classifyRpcError(refused, 'base')).toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      retryable: true,
    });

    const silent: Server = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const port = (silent.address() as AddressInfo).port;
      const slow = createChainClient(
        { ...template, rpcUrl: `http://127.0.0.1:${port}` },
        { rpcTimeoutMs: 200 },
      );
      const timedOut = await slow.getBlockNumber().catch((e: unknown) => e);
      expect(classifyRpcError(timedOut)).toMatchObject({ code: 'UPSTREAM_TIMEOUT', retryable: true });
    } finally {
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }

    const reverted = await clients
      .get('base')
      .readContract({
        address: template.aqua as Address,
        abi: aquaAbi,
        functionName: 'safeBalances',
        args: [
          template.feeReceiver as Address,
          template.router as Address,
          `0x${'00'.repeat(32)}`,
          template.aqua as Address,
          template.router as Address,
        ],
      })
      .catch((e: unknown) => e);
    expect(reverted).toBeInstanceOf(Error);
    expect(classifyRpcError(reverted)).toBeNull();
  });

  it('batches view calls into one aggregate3 per chain and answers them as viem.multicall does', async () => {
    const base = registry.require('base');
    const usdc = registry.token('base', 'usdc')!;
    const aqua = base.aqua as Address;
    const reads: ContractRead[] = [
      {
        chain: 'base',
        address: usdc.address as Address,
        abi: erc20Abi as Abi,
        functionName: 'balanceOf',
        args: [aqua],
      },
      {
        chain: 'base',
        address: usdc.address as Address,
        abi: erc20Abi as Abi,
        functionName: 'allowance',
        args: [base.feeReceiver, aqua],
      },
      {
        chain: 'base',
        address: aqua,
        abi: aquaAbi as Abi,
        functionName: 'rawBalances',
        args: [base.feeReceiver, base.router, `0x${'11'.repeat(32)}`, usdc.address],
      },
      // No code at this address: the call "succeeds" with no data.
      {
        chain: 'base',
        address: `0x${'0d'.repeat(20)}`,
        abi: erc20Abi as Abi,
        functionName: 'balanceOf',
        args: [aqua],
      },
      // Reverts: the strategy does not exist.
      {
        chain: 'base',
        address: aqua,
        abi: aquaAbi as Abi,
        functionName: 'safeBalances',
        args: [base.feeReceiver, base.router, `0x${'00'.repeat(32)}`, aqua, base.router],
      },
    ];
    const metrics = new Metrics();
    const counted = createChainClients(registry, { rpcTimeoutMs: 5000, metrics });
    const rpcCalls = async () =>
      (await metrics.registry.getSingleMetric('gateway_rpc_requests_total')!.get()).values.reduce(
        (sum, v) => sum + v.value,
        0,
      );
    await counted.get('base').getBlockNumber(); // the endpoint's first use checks its chain id
    const before = await rpcCalls();
    const loader = createMulticallLoader({ clients: counted });
    const ours = await Promise.allSettled(reads.map((read) => loader.load(read)));
    expect(await rpcCalls()).toBe(before + 1);
    const viems = await clients.get('base').multicall({
      contracts: reads.map(({ address, abi, functionName, args }) => ({ address, abi, functionName, args })),
      allowFailure: true,
      batchSize: 0,
    });
    expect(viems.map((v) => v.status)).toEqual(['success', 'success', 'success', 'failure', 'failure']);
    ours.forEach((outcome, i) => {
      const theirs = viems[i]!;
      if (theirs.status === 'success') {
        expect(outcome).toEqual({ status: 'fulfilled', value: theirs.result });
        return;
      }
      expect(outcome.status).toBe('rejected');
      const error = (outcome as PromiseRejectedResult).reason as Error;
      expect(error.constructor).toBe(theirs.error.constructor);
      expect((error.cause as Error).constructor).toBe((theirs.error.cause as Error).constructor);
      expect(error.message).toBe(theirs.error.message);
      expect(classifyRpcError(error)).toBeNull();
    });
    expect(typeof (ours[0] as PromiseFulfilledResult<bigint>).value).toBe('bigint');
    expect((ours[2] as PromiseFulfilledResult<readonly [bigint, number]>).value).toEqual([0n, 0]);

    // A dead RPC: every read of the batch fails with the round trip's error, classified as unavailable.
    const deadClients = createChainClients(new ChainRegistry([{ ...base, rpcUrl: 'http://127.0.0.1:9' }]), {
      rpcTimeoutMs: 1000,
    });
    const deadLoader = createMulticallLoader({ clients: deadClients });
    const failed = await Promise.allSettled(reads.slice(0, 2).map((read) => deadLoader.load(read)));
    for (const outcome of failed) {
      expect(outcome.status).toBe('rejected');
      expect(classifyRpcError((outcome as PromiseRejectedResult).reason, 'base')).toMatchObject({
        code: 'UPSTREAM_UNAVAILABLE',
      });
    }
  });

  it('stops every anvil it started', async () => {
    expect(anvilProcesses().length).toBe(3);
    await devnet!.stop();
    expect(anvilProcesses()).toEqual([]);
  });
});
