import { type Address, decodeFunctionData, decodeFunctionResult, encodeFunctionData, type Hex } from 'viem';
import { aquaAbi, erc20Abi, routerAbi } from '../chain/abi.js';
import { quoteCalldata } from '../chain/calldata.js';
import { decodeStrategy } from '../chain/order.js';
import { exactInTakerTraits } from '../chain/takerTraits.js';
import { createKey } from '../resolvers/apiKeys.js';
import { bareServer, post, sequentialAgent } from './lib.js';
import {
  counterTotal,
  interleavedSeries,
  type LatencySeries,
  latencySeries,
  machine,
  printLatencyTable,
  writeResult,
} from './measure.js';
import { startWriteBench, writeWallets } from './writeSetup.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const WARM_UP = 100;
const BASE_PORT = Number(process.env.BENCH_KINDS_PORT ?? 19216);
const UNIT = 1_000_000n;
const DEPOSIT = 1_000_000n * UNIT;
const INPUTS = [1_000n, 10_000n, 100_000n];

const KINDS: Record<string, unknown> = {
  xyc: undefined,
  concentrated: { kind: 'concentrated', priceRange: { min: '0.995', max: '1.005' } },
  pegged: { kind: 'pegged' },
};

const bench = await startWriteBench('kinds', BASE_PORT);
const { devnet, service } = bench;
const base = devnet.chains.find((c) => c.key === 'base')!;
/** The maker wallet of the write benches (devnet tooling: it signs here, never the service). */
const maker = writeWallets(base);
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
      wallet: maker.maker,
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
  for (const symbol of ['USDC', 'USDT']) {
    // The devnet TestToken's open mint.
    await maker.send({
      to: token(symbol),
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'mint', args: [maker.maker, 10n * DEPOSIT] }),
    });
  }
  for (const [kind, strategy] of Object.entries(KINDS)) {
    const prepared = await prepare(body(strategy));
    for (const tx of prepared.data.transactions) await maker.send({ to: tx.to, data: tx.data });
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

  // 2. Prepare per kind, the kinds taking turns call by call after a common warm-up, so that neither
  //    JIT warm-up nor the box's drift favours one: each call's CPU (this process: service and client)
  //    and latency is booked to its kind.
  let sample = '';
  const order = Object.keys(KINDS);
  const payloads = order.map((kind) => body(KINDS[kind]));
  const rpcCount = () =>
    counterTotal(service.services.metrics!.registry, 'gateway_rpc_requests_total', { client: 'gateway' });
  series.push(
    ...(await interleavedSeries(
      order.map((kind) => `prepare ${kind}`),
      REQUESTS,
      WARM_UP * 3,
      async (k) => {
        const [status, text] = await post(`${service.url}/v1/positions`, payloads[k]!, {
          'content-type': 'application/json',
          authorization: `Bearer ${key}`,
        });
        if (status !== 200) throw new Error(`prepare answered ${status}`);
        sample ||= text;
      },
      rpcCount,
    )),
  );
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
  await bench.stop();
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
