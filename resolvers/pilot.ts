import { type Abi, type Address, getAddress, type Hex, isAddress } from 'viem';
import { aquaAbi, erc20Abi, multicall3Abi, routerAbi } from '../chain/abi.js';
import { classifyRpcError } from '../chain/clients.js';
import type { ChainRegistry } from '../chain/registry.js';
import type { ChainConfig, TokenConfig } from '../lib/config.js';
import { ApiError } from '../lib/errors.js';
import type { Services } from '../lib/services.js';
import type { Loaders } from '../loaders/index.js';

/**
 * The two demo helpers of SPEC §4.7 and §4.8, over the test network: the pilot (demo wallets, their
 * shipped strategy, its recent swaps, the fee receiver's balance) and a balances look-up.
 */

/** A pilot read is served from memory for this long, so a busy page does not hammer the RPC. */
export const PILOT_CACHE_MS = 3_000;
/** Swaps of the window listed, most recent first (the window's count and volume cover them all). */
export const PILOT_SWAPS_LISTED = 25;
export const MAX_BALANCE_ADDRESSES = 10;
/** The tokens the demo reads balances of, when the test network lists them. */
const DEMO_SYMBOLS = ['USDC', 'USDT'] as const;
const TOKENS_COUNT_DOCKED = 0xff;

/** An amount of a token (or of the native currency: `address` null), in base units. */
export interface TokenAmount {
  symbol: string;
  address: string | null;
  decimals: number | null;
  amount: string;
}

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

export interface BalancesView {
  chain: string;
  chainId: number;
  name: string;
  accounts: { address: string; native: TokenAmount; tokens: TokenAmount[] }[];
}

/** The test network of the pilot: a testnet chain with `pilot` configured. */
export function pilotChain(
  registry: ChainRegistry,
): ChainConfig & { pilot: NonNullable<ChainConfig['pilot']> } {
  const chain = registry.list().find((c) => c.testnet && c.pilot);
  if (!chain?.pilot) {
    throw new ApiError('UPSTREAM_UNAVAILABLE', 'No test network with a pilot is configured on this service.');
  }
  return { ...chain, pilot: chain.pilot };
}

/** The test network of the balances look-up: the pilot's, else the first testnet chain. */
export function demoChain(registry: ChainRegistry): ChainConfig {
  const chains = registry.list().filter((c) => c.testnet);
  const chain = chains.find((c) => c.pilot) ?? chains[0];
  if (!chain) throw new ApiError('UPSTREAM_UNAVAILABLE', 'No test network is configured on this service.');
  return chain;
}

/**
 * 1 to 10 addresses, each a valid EVM address (mixed case must carry a valid checksum); the culprit is
 * named as `addresses[i]` (0-based). Duplicates are allowed and read once; the result is checksummed.
 */
export function parseAddressList(list: readonly string[], parameter = 'addresses'): Address[] {
  if (list.length === 0 || list.length > MAX_BALANCE_ADDRESSES) {
    throw ApiError.invalid(
      parameter,
      `${parameter} takes 1 to ${MAX_BALANCE_ADDRESSES} comma-separated addresses; got ${list.length}.`,
    );
  }
  const seen = new Set<string>();
  const out: Address[] = [];
  list.forEach((raw, i) => {
    const value = raw.trim();
    if (!isAddress(value, { strict: true })) {
      const shown = value.length > 50 ? `${value.slice(0, 50)}…` : value;
      throw ApiError.invalid(
        `${parameter}[${i}]`,
        `${parameter}[${i}] (${JSON.stringify(shown)}) is not an EVM address: 0x and 40 hex characters, with a valid checksum when mixed-case.`,
      );
    }
    const address = getAddress(value);
    if (seen.has(address)) return;
    seen.add(address);
    out.push(address);
  });
  return out;
}

function demoTokens(chain: ChainConfig, registry: ChainRegistry): TokenConfig[] {
  return DEMO_SYMBOLS.map((s) => registry.token(chain.key, s)).filter(
    (t): t is TokenConfig => t !== undefined,
  );
}

function tokenAmount(token: TokenConfig, amount: bigint): TokenAmount {
  return {
    symbol: token.symbol,
    address: getAddress(token.address),
    decimals: token.decimals,
    amount: amount.toString(),
  };
}

function nativeAmount(services: Services, chain: ChainConfig, amount: bigint): TokenAmount {
  const native = services.clients.chain(chain.key).nativeCurrency;
  return { symbol: native.symbol, address: null, decimals: native.decimals, amount: amount.toString() };
}

/** An RPC fault as the service's error; a revert inside a batch is the test network misbehaving. */
function upstream(error: unknown, chainKey: string): ApiError {
  return (
    classifyRpcError(error, chainKey) ??
    new ApiError('UPSTREAM_UNAVAILABLE', `A contract of chain "${chainKey}" did not answer as expected.`, {
      cause: error,
    })
  );
}

/** The calls of one account: native (Multicall3 getEthBalance) and each token's balanceOf. */
function accountReads(loaders: Loaders, chain: ChainConfig, tokens: TokenConfig[], owner: Address) {
  const read = (address: string, abi: Abi, functionName: string, args: readonly unknown[]) =>
    loaders.multicall.load({
      chain: chain.key,
      address: address as Address,
      abi,
      functionName,
      args,
    }) as Promise<bigint>;
  return {
    native: read(chain.multicall, multicall3Abi, 'getEthBalance', [owner]),
    tokens: tokens.map((t) => read(t.address, erc20Abi, 'balanceOf', [owner])),
  };
}

/** USDC, USDT and native balances of the addresses on the test network, in one multicall round trip. */
export async function readBalances(
  services: Services,
  loaders: Loaders,
  addresses: readonly string[],
): Promise<BalancesView> {
  const owners = parseAddressList(addresses);
  const chain = demoChain(services.registry);
  const tokens = demoTokens(chain, services.registry);
  const pending = owners.map((owner) => accountReads(loaders, chain, tokens, owner));
  try {
    const accounts = await Promise.all(
      owners.map(async (address, i) => {
        const reads = pending[i]!;
        const [native, ...balances] = await Promise.all([reads.native, ...reads.tokens]);
        return {
          address,
          native: nativeAmount(services, chain, native!),
          tokens: tokens.map((t, j) => tokenAmount(t, balances[j]!)),
        };
      }),
    );
    return { chain: chain.key, chainId: chain.chainId, name: chain.name ?? chain.key, accounts };
  } catch (error) {
    throw upstream(error, chain.key);
  }
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
