/**
 * What the activity bot trades against: every active strategy on the chain's router whose two tokens
 * are listed and whose program the devnet router runs, found from Aqua's `Shipped`, `Pushed` and `Docked` logs (PROTOCOL.md "What an indexer
 * follows") — the devnet's own and any shipped through the API by another wallet.
 */
import { type Address, getAddress, type Hex, isAddressEqual, parseEventLogs } from 'viem';
import { getBlockNumber, getLogs } from 'viem/actions';
import { aquaAbi } from '../chain/abi.js';
import { decodeStrategy, isPlainAquaOrder } from '../chain/order.js';
import { decodeProgram, uintArg } from '../chain/program.js';
import type { SeededChain } from './seed.js';
import type { LiveStrategy } from './strategies.js';

/** Blocks per eth_getLogs request. */
const CHUNK = 5_000n;

/** The maker fee (1e9 scale) of a program, 0 without a FlatFeeAmountIn. */
function flatFeeOf(data: Hex): number {
  const fee = decodeProgram(data).find((i) => i.name === 'FlatFeeAmountIn');
  return fee ? Number(uintArg(fee, 'fee1e9') ?? 0n) : 0;
}

/** The instructions the devnet router runs (devnet/contracts/AquaSwapVMRouter.sol: the Aqua table). */
const DEVNET_RUNS = new Set([
  'Jump',
  'Deadline',
  'XYCSwap',
  'XYCConcentrateGrowLiquidity2D',
  'Decay',
  'Salt',
  'FlatFeeAmountIn',
  'AquaProtocolFeeAmountIn',
  'PeggedSwapGrowPriceRange2D',
]);

/** Whether the devnet router can run a program: a swap on any other one reverts, so the bot skips it. */
export function runsOnDevnetRouter(data: Hex): boolean {
  return decodeProgram(data).every((i) => i.ok && DEVNET_RUNS.has(i.name));
}

/** The largest Salt among the strategies: the devnet's next salt goes past it. */
export function largestSalt(strategies: readonly LiveStrategy[]): bigint {
  let largest = 0n;
  for (const s of strategies) {
    for (const i of decodeProgram(s.order.data)) {
      const salt =
        i.name === 'Salt' && i.ok && i.args.length > 2 && i.args.length <= 66 ? BigInt(i.args) : 0n;
      if (salt > largest) largest = salt;
    }
  }
  return largest;
}

/**
 * Reads Aqua's logs from `chain.scannedTo` to the head and updates `chain.live`: strategies shipped to
 * the router with two listed tokens are added (once per hash), docked ones removed. Returns the
 * strategies it added.
 */
export async function discoverStrategies(chain: SeededChain): Promise<LiveStrategy[]> {
  const aqua = getAddress(chain.config.aqua);
  const router = getAddress(chain.config.router);
  const symbolOf = new Map(chain.config.tokens.map((t) => [getAddress(t.address), t.symbol]));
  const head = await getBlockNumber(chain.rpc, { cacheTime: 0 });
  const added: LiveStrategy[] = [];
  const known = new Set(chain.live.map((s) => s.hash));

  for (let from = chain.scannedTo; from <= head; from += CHUNK) {
    const to = from + CHUNK - 1n < head ? from + CHUNK - 1n : head;
    const raw = await getLogs(chain.rpc, { address: aqua, fromBlock: from, toBlock: to });
    const logs = parseEventLogs({ abi: aquaAbi, logs: raw, strict: false });
    for (let i = 0; i < logs.length; i++) {
      const log = logs[i]!;
      if (log.eventName === 'Docked') {
        const { app, strategyHash } = log.args;
        if (!app || !strategyHash || !isAddressEqual(app, router)) continue;
        const index = chain.live.findIndex((s) => s.hash === strategyHash);
        if (index >= 0) chain.live.splice(index, 1);
        continue;
      }
      if (log.eventName !== 'Shipped') continue;
      const { maker, app, strategyHash, strategy } = log.args;
      if (!maker || !app || !strategyHash || !strategy || !isAddressEqual(app, router)) continue;
      // Tokens and amounts: the Pushed logs right after Shipped in the same transaction.
      const pushed: { token: Address; amount: bigint }[] = [];
      for (let j = i + 1; j < logs.length; j++) {
        const next = logs[j]!;
        if (next.transactionHash !== log.transactionHash || next.eventName !== 'Pushed') break;
        if (next.args.strategyHash !== strategyHash || !next.args.token || next.args.amount === undefined)
          break;
        pushed.push({ token: getAddress(next.args.token), amount: next.args.amount });
      }
      const order = decodeStrategy(strategy);
      if (!order || !isPlainAquaOrder(order) || !isAddressEqual(order.maker, maker)) continue;
      if (pushed.length !== 2 || known.has(strategyHash) || !runsOnDevnetRouter(order.data)) continue;
      const [a, b] = pushed as [(typeof pushed)[0], (typeof pushed)[0]];
      const symbols = [symbolOf.get(a.token), symbolOf.get(b.token)] as const;
      if (!symbols[0] || !symbols[1]) continue;
      const live: LiveStrategy = {
        maker: getAddress(maker),
        symbols: [symbols[0], symbols[1]],
        tokens: [a.token, b.token],
        amounts: [a.amount, b.amount],
        flatFee1e9: flatFeeOf(order.data),
        order,
        strategy,
        hash: strategyHash,
        pilot: chain.config.pilot?.strategyHash.toLowerCase() === strategyHash.toLowerCase(),
      };
      known.add(strategyHash);
      chain.live.push(live);
      added.push(live);
    }
    chain.scannedTo = to + 1n;
  }
  // A strategy shipped and docked within the range was added, then removed: report only the live ones.
  const live = new Set(chain.live.map((s) => s.hash));
  return added.filter((s) => live.has(s.hash));
}
