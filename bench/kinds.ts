/**
 * The strategy kinds side by side on the devnet, through the real service:
 *  1. What a taker gets for 1,000, 10,000 and 100,000 USDC from a USDC/USDT position of 1,000,000 +
 *     1,000,000 under `xyc`, `concentrated` (±0.5 %) and `pegged` (the default ±0.2 % band): each
 *     position prepared over HTTP, its steps signed and sent as returned, then quoted by the router
 *     itself (what /api/quote and /v1/swaps answer on that block).
 *  2. POST /v1/positions per kind, sequential from one client: latency and the gateway's CPU per call,
 *     each kind against `xyc` in the same run.
 *   npm run bench:kinds        (BENCH_REQUESTS=300, BENCH_KINDS_PORT=19216)
 * Writes bench/results/kinds.json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type Address,
  createWalletClient,
  decodeFunctionData,
  decodeFunctionResult,
  encodeFunctionData,
  type Hex,
  http,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { aquaAbi, erc20Abi, routerAbi } from '../chain/abi.js';
import { quoteCalldata } from '../chain/calldata.js';
import { viemChainOf } from '../chain/clients.js';
import { decodeStrategy } from '../chain/order.js';
import { exactInTakerTraits } from '../chain/takerTraits.js';
import { startDevnet } from '../devnet/devnet.js';
import { loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { createKey } from '../resolvers/apiKeys.js';
import { startService } from '../service.js';
import { createTestDatabase } from '../test/helpers/postgres.js';
import { bareServer, post, sequentialAgent } from './lib.js';
import {
  counterTotal,
  type LatencySeries,
  latencySeries,
  machine,
  printLatencyTable,
  writeResult,
} from './measure.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const WARM_UP = 100;
const BASE_PORT = Number(process.env.BENCH_KINDS_PORT ?? 19216);
const UNIT = 1_000_000n;
const DEPOSIT = 1_000_000n * UNIT;
const INPUTS = [1_000n, 10_000n, 100_000n];
/** anvil's default mnemonic; index 9 is not used by the devnet. */
const maker = mnemonicToAccount('test test test test test test test test test test test junk', {
  addressIndex: 9,
});

const KINDS: Record<string, unknown> = {
  xyc: undefined,
  concentrated: { kind: 'concentrated', priceRange: { min: '0.995', max: '1.005' } },
  pegged: { kind: 'pegged' },
};

const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-kinds-'));
const database = await createTestDatabase();
const devnet = await startDevnet({ basePort: BASE_PORT, dataDir, activityMs: 2_000_000_000 });
const config = loadConfig({
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
  INDEXER: 'off',
  DATABASE_URL: database.url,
  INTERNAL_TOKEN: 'bench-internal-token-0123456789',
});
const service = await startService(config, { chains: devnet.chains, logger: createLogger('silent') });
const base = devnet.chains.find((c) => c.key === 'base')!;
const token = (symbol: string) => base.tokens.find((t) => t.symbol === symbol)!.address as Address;
const series: LatencySeries[] = [];
const outputs: Record<string, Record<string, string>> = {};
try {
  const { key } = await createKey(service.services.db, {
    environment: 'live',
    prepareLimitPerMinute: 100_000,
  });
  const body = (strategy: unknown) =>
    JSON.stringify({
      chain: 'base',
      wallet: maker.address,
      deposits: [
        { symbol: 'USDC', amount: DEPOSIT.toString() },
        { symbol: 'USDT', amount: DEPOSIT.toString() },
      ],
      ...(strategy === undefined ? {} : { strategy }),
    });
  const prepare = async (payload: string) => {
    const [status, text] = await post(`${service.url}/v1/positions`, payload, {
      'content-type': 'application/json',
      authorization: `Bearer ${key}`,
    });
    if (status !== 200) throw new Error(`prepare answered ${status}: ${text}`);
    return JSON.parse(text) as { data: { transactions: { to: Address; data: Hex; value: string }[] } };
  };

  // 1. Open one position of each kind and quote it on the router.
  const client = service.services.clients.get('base');
  const wallet = createWalletClient({
    account: maker,
    chain: viemChainOf(base),
    transport: http(base.rpcUrl),
  });
  const send = async (to: Address, data: Hex) => {
    const hash = await wallet.sendTransaction({ to, data });
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`transaction to ${to} reverted`);
  };
  for (const symbol of ['USDC', 'USDT']) {
    // The devnet TestToken's open mint.
    await send(
      token(symbol),
      encodeFunctionData({ abi: erc20Abi, functionName: 'mint', args: [maker.address, 10n * DEPOSIT] }),
    );
  }
  for (const [kind, strategy] of Object.entries(KINDS)) {
    const prepared = await prepare(body(strategy));
    for (const tx of prepared.data.transactions) await send(tx.to, tx.data);
    const ship = prepared.data.transactions.at(-1)!;
    const order = decodeStrategy(decodeFunctionData({ abi: aquaAbi, data: ship.data }).args[1] as Hex)!;
    outputs[kind] = {};
    for (const whole of INPUTS) {
      const { data } = await client.call({
        to: base.router as Address,
        data: quoteCalldata({
          order,
          tokenIn: token('USDC'),
          tokenOut: token('USDT'),
          amount: whole * UNIT,
          takerTraits: exactInTakerTraits(),
        }),
      });
      const [, amountOut] = decodeFunctionResult({ abi: routerAbi, functionName: 'quote', data: data! });
      outputs[kind][`${whole} USDC`] = (Number(amountOut) / 1e6).toFixed(6);
    }
  }

  // 2. Prepare per kind: latency and CPU, xyc first as the baseline.
  const rpcCount = () =>
    counterTotal(service.services.metrics!.registry, 'gateway_rpc_requests_total', { client: 'gateway' });
  let sample = '';
  for (const [kind, strategy] of Object.entries(KINDS)) {
    const payload = body(strategy);
    series.push(
      await latencySeries(
        `prepare ${kind}`,
        REQUESTS,
        WARM_UP,
        async () => {
          const started = performance.now();
          const [status, text] = await post(`${service.url}/v1/positions`, payload, {
            'content-type': 'application/json',
            authorization: `Bearer ${key}`,
          });
          if (status !== 200) throw new Error(`prepare answered ${status}`);
          sample ||= text;
          return performance.now() - started;
        },
        rpcCount,
      ),
    );
  }
  const bare = await bareServer(sample);
  series.push(
    await latencySeries(
      'floor: the same client against bare node:http (same bytes)',
      REQUESTS,
      WARM_UP,
      async () => {
        const started = performance.now();
        await post(bare.url, body(undefined), { 'content-type': 'application/json' });
        return performance.now() - started;
      },
    ),
  );
  bare.close();
} finally {
  sequentialAgent.destroy();
  await service.stop();
  await devnet.stop();
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
}

console.log('\nTaker output (USDT) for a USDC input, USDC/USDT position of 1,000,000 + 1,000,000:');
console.table(outputs);
printLatencyTable(series);
const floor = series.at(-1)!.cpuMsPerCall ?? 0;
const gateway = (name: string) =>
  Number(((series.find((s) => s.name === name)!.cpuMsPerCall ?? 0) - floor).toFixed(3));
const xyc = gateway('prepare xyc');
const cpu = Object.fromEntries(
  Object.keys(KINDS).map((kind) => {
    const ms = gateway(`prepare ${kind}`);
    return [kind, { gatewayMsPerCall: ms, ratioToXyc: Number((ms / xyc).toFixed(2)) }];
  }),
);
for (const [kind, c] of Object.entries(cpu))
  console.log(`prepare ${kind}: gateway ≈ ${c.gatewayMsPerCall} ms CPU per call, ${c.ratioToXyc}× xyc`);
const file = writeResult('kinds', {
  benchmark: 'strategy kinds on the devnet: taker output per kind, and POST /v1/positions CPU per kind',
  outputs,
  series,
  cpu,
  machine: machine(),
  measuredAt: new Date().toISOString(),
});
console.log(`written ${file}`);
