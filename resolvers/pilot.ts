import { type Address, getAddress, type Hex } from 'viem';
import { aquaAbi, erc20Abi, routerAbi } from '../chain/abi.js';
import type { Services } from '../lib/services.js';
import type { Loaders } from '../loaders/index.js';
import {
  accountReads,
  demoTokens,
  nativeAmount,
  pilotChain,
  type TokenAmount,
  tokenAmount,
  upstream,
} from './demo.js';

/**
 * The pilot of SPEC §4.7 over the test network: the demo wallets, their shipped strategy, its recent
 * swaps and the fee receiver's balance, read live and kept in memory for a few seconds (with the times
 * of the blocks the listed swaps sit in). The shared demo reads are in resolvers/demo.ts.
 */

/** A pilot read is served from memory for this long, so a busy page does not hammer the RPC. */
export const PILOT_CACHE_MS = 3_000;
/** Swaps of the window listed, most recent first (the window's count and volume cover them all). */
export const PILOT_SWAPS_LISTED = 25;
const TOKENS_COUNT_DOCKED = 0xff;

export interface PilotWalletView {
  address: string;
  balances: TokenAmount[];
}

export interface PilotStrategyView {
  hash: string;
  maker: string;
  app: string;
  /** `active` while shipped, `docked` once closed, `not_shipped` when Aqua holds nothing for it. */
  status: 'active' | 'docked' | 'not_shipped';
  /** The strategy's tokens and their live balances in Aqua (`rawBalances`). */
  tokens: TokenAmount[];
}

export interface PilotSwapView {
  transactionHash: string;
  blockNumber: string;
  logIndex: number;
  /** Time of the block; null when the node did not give it. */
  timestamp: string | null;
  taker: string;
  tokenIn: TokenAmount;
  tokenOut: TokenAmount;
}

export interface PilotView {
  chain: string;
  chainId: number;
  name: string;
  blockNumber: string;
  observedAt: string;
  cached: boolean;
  wallets: { maker: PilotWalletView; taker: PilotWalletView; feeWallet: PilotWalletView };
  strategy: PilotStrategyView;
  swaps: {
    fromBlock: string;
    toBlock: string;
    blockWindow: number;
    count: number;
    /** Gross amounts in per token over the whole window. */
    volume: TokenAmount[];
    items: PilotSwapView[];
  };
  /** The protocol fee receiver's balances. Its address is deliberately never part of the view. */
  feeReceiver: { balances: TokenAmount[] };
}

interface PilotState {
  value?: PilotView;
  at: number;
  pending?: Promise<PilotView>;
  /** Block hash → ISO time: blocks do not change, so each is asked for once. */
  blockTimes: Map<string, string>;
}

const states = new WeakMap<Services, PilotState>();

function stateOf(services: Services): PilotState {
  let state = states.get(services);
  if (!state) {
    state = { at: 0, blockTimes: new Map() };
    states.set(services, state);
  }
  return state;
}

/**
 * The pilot, from memory when the last read is younger than PILOT_CACHE_MS; concurrent requests share
 * one read in flight. Failures are not cached.
 */
export async function readPilot(services: Services, loaders: Loaders): Promise<PilotView> {
  const chain = pilotChain(services.registry);
  const state = stateOf(services);
  if (state.value && Date.now() - state.at < PILOT_CACHE_MS) return { ...state.value, cached: true };
  state.pending ??= fetchPilot(services, loaders, chain, state)
    .then((view) => {
      state.value = view;
      state.at = Date.now();
      return view;
    })
    .finally(() => {
      state.pending = undefined;
    });
  return state.pending;
}

async function fetchPilot(
  services: Services,
  loaders: Loaders,
  chain: ReturnType<typeof pilotChain>,
  state: PilotState,
): Promise<PilotView> {
  const { registry, config } = services;
  const client = services.clients.get(chain.key);
  const pilot = chain.pilot;
  const strategyHash = pilot.strategyHash.toLowerCase() as Hex;
  const demo = demoTokens(chain, registry);
  try {
    const latest = await client.getBlockNumber({ cacheTime: 0 });
    const window = BigInt(config.pilotBlockWindow);
    const fromBlock = latest >= window ? latest - window + 1n : 0n;

    const wallets = (['maker', 'taker', 'feeWallet'] as const).map((role) => {
      const address = getAddress(pilot[role]);
      return { role, address, reads: accountReads(loaders, chain, demo, address) };
    });
    const feeReads = demo.map((t) =>
      loaders.multicall.load({
        chain: chain.key,
        address: t.address as Address,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [chain.feeReceiver],
      }),
    );
    const strategyReads = chain.tokens.map((t) =>
      loaders.multicall.load({
        chain: chain.key,
        address: chain.aqua as Address,
        abi: aquaAbi,
        functionName: 'rawBalances',
        args: [pilot.maker, chain.router, strategyHash, t.address],
      }),
    );
    const logsRead = client.getContractEvents({
      address: chain.router as Address,
      abi: routerAbi,
      eventName: 'Swapped',
      fromBlock,
      toBlock: latest,
    });

    const [walletBalances, feeBalances, raw, logs] = await Promise.all([
      Promise.all(wallets.map((w) => Promise.all([w.reads.native, ...w.reads.tokens]))),
      Promise.all(feeReads),
      Promise.all(strategyReads),
      logsRead,
    ]);

    const walletView = (i: number): PilotWalletView => {
      const [native, ...tokens] = walletBalances[i]! as bigint[];
      return {
        address: wallets[i]!.address,
        balances: [nativeAmount(services, chain, native!), ...demo.map((t, j) => tokenAmount(t, tokens[j]!))],
      };
    };

    const held = chain.tokens
      .map((token, i) => ({ token, entry: raw[i] as readonly [bigint, number] }))
      .filter(({ entry }) => entry[1] !== 0);
    const status =
      held.length === 0
        ? 'not_shipped'
        : held.every(({ entry }) => entry[1] === TOKENS_COUNT_DOCKED)
          ? 'docked'
          : 'active';

    const describe = (address: string, amount: bigint): TokenAmount => {
      const token = registry.tokenByAddress(chain.key, address);
      return token
        ? tokenAmount(token, amount)
        : {
            symbol: getAddress(address),
            address: getAddress(address),
            decimals: null,
            amount: amount.toString(),
          };
    };

    const swaps = logs
      .filter((log) => log.args.orderHash?.toLowerCase() === strategyHash && log.transactionHash !== null)
      .sort((a, b) =>
        a.blockNumber === b.blockNumber
          ? (b.logIndex ?? 0) - (a.logIndex ?? 0)
          : Number((b.blockNumber ?? 0n) - (a.blockNumber ?? 0n)),
      );
    const volume = new Map<string, bigint>();
    for (const log of swaps) {
      const token = log.args.tokenIn!.toLowerCase();
      volume.set(token, (volume.get(token) ?? 0n) + log.args.amountIn!);
    }
    const listed = swaps.slice(0, PILOT_SWAPS_LISTED);
    const times = await blockTimes(
      client,
      state,
      listed.map((log) => ({
        hash: log.blockHash!,
        timestamp: (log as { blockTimestamp?: bigint | null }).blockTimestamp ?? null,
      })),
    );

    return {
      chain: chain.key,
      chainId: chain.chainId,
      name: chain.name ?? chain.key,
      blockNumber: latest.toString(),
      observedAt: new Date().toISOString(),
      cached: false,
      wallets: { maker: walletView(0), taker: walletView(1), feeWallet: walletView(2) },
      strategy: {
        hash: strategyHash,
        maker: getAddress(pilot.maker),
        app: getAddress(chain.router),
        status,
        tokens: held.map(({ token, entry }) =>
          tokenAmount(token, entry[1] === TOKENS_COUNT_DOCKED ? 0n : entry[0]),
        ),
      },
      swaps: {
        fromBlock: fromBlock.toString(),
        toBlock: latest.toString(),
        blockWindow: config.pilotBlockWindow,
        count: swaps.length,
        volume: [...volume].map(([token, amount]) => describe(token, amount)),
        items: listed.map((log) => ({
          transactionHash: log.transactionHash!,
          blockNumber: String(log.blockNumber),
          logIndex: log.logIndex ?? 0,
          timestamp: times.get(log.blockHash!) ?? null,
          taker: getAddress(log.args.taker!),
          tokenIn: describe(log.args.tokenIn!, log.args.amountIn!),
          tokenOut: describe(log.args.tokenOut!, log.args.amountOut!),
        })),
      },
      feeReceiver: { balances: demo.map((t, j) => tokenAmount(t, feeBalances[j] as bigint)) },
    };
  } catch (error) {
    throw upstream(error, chain.key);
  }
}

const BLOCK_TIMES_KEPT = 4096;

/** Times of the blocks: from the logs when the node gives them, else one getBlock per unknown block. */
async function blockTimes(
  client: ReturnType<Services['clients']['get']>,
  state: PilotState,
  blocks: { hash: Hex; timestamp: bigint | null }[],
): Promise<Map<string, string>> {
  const iso = (seconds: bigint) => new Date(Number(seconds) * 1000).toISOString();
  const missing = new Set<Hex>();
  for (const block of blocks) {
    if (state.blockTimes.has(block.hash)) continue;
    if (block.timestamp !== null) state.blockTimes.set(block.hash, iso(block.timestamp));
    else missing.add(block.hash);
  }
  await Promise.all(
    [...missing].map(async (blockHash) => {
      const block = await client.getBlock({ blockHash });
      state.blockTimes.set(blockHash, iso(block.timestamp));
    }),
  );
  while (state.blockTimes.size > BLOCK_TIMES_KEPT) {
    state.blockTimes.delete(state.blockTimes.keys().next().value!);
  }
  return state.blockTimes;
}
