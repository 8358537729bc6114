/**
 * What a tool call on /mcp costs beyond the same REST call: the chains read and a prepare, each made
 * over REST and as an MCP `tools/call`, taking turns call by call after a common warm-up (so neither JIT
 * warm-up nor the box's drift favours one), on the in-process service of the write benches. The client
 * sends the same one POST per call either way (raw JSON-RPC for MCP, no SDK client), so the difference
 * in this process's CPU per call is the gateway's.
 */
import { createKey } from '../resolvers/apiKeys.js';
import { send, sequentialAgent } from './lib.js';
import {
  counterTotal,
  interleavedSeries,
  type LatencySeries,
  machine,
  printLatencyTable,
  writeResult,
} from './measure.js';
import { startWriteBench, writeWallets } from './writeSetup.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const WARM_UP = 100;
const BASE_PORT = Number(process.env.BENCH_MCP_PORT ?? 19236);

// Behind a trusted proxy, each call from a client address of its own: the per-client read buckets
// (60 a minute for the chains) would otherwise refuse the run, REST and MCP alike.
const bench = await startWriteBench('mcp', BASE_PORT, { TRUST_PROXY: 'true' });
let client = 0;
const fresh = () => ({
  'x-forwarded-for': `10.${(++client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}`,
});
const { devnet, service } = bench;
const base = devnet.chains.find((c) => c.key === 'base')!;
const series: LatencySeries[] = [];
try {
  const { key } = await createKey(service.services.db, {
    environment: 'live',
    prepareLimitPerMinute: 100_000,
  });
  const auth = { authorization: `Bearer ${key}` };
  const intent = {
    chain: 'base',
    wallet: writeWallets(base).maker,
    deposits: [
      { symbol: 'USDC', amount: '1000000000' },
      { symbol: 'USDT', amount: '1000000000' },
    ],
  };
  const mcpHeaders = {
    ...auth,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const toolCall = (name: string, args: unknown) =>
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
  const calls: { name: string; run: () => Promise<[number, string]>; ok: (text: string) => boolean }[] = [
    {
      name: 'chains over REST (GET /api/chains)',
      run: () => send(`${service.url}/api/chains`, 'GET', null, fresh()),
      ok: (t) => t.startsWith('{"data"'),
    },
    {
      name: 'chains as an MCP tool (getChains)',
      run: () => send(`${service.url}/mcp`, 'POST', toolCall('getChains', {}), { ...mcpHeaders, ...fresh() }),
      ok: (t) => t.includes('"structuredContent"') && !t.includes('"isError"'),
    },
    {
      name: 'prepare over REST (POST /v1/positions)',
      run: () =>
        send(`${service.url}/v1/positions`, 'POST', JSON.stringify(intent), {
          ...auth,
          'content-type': 'application/json',
        }),
      ok: (t) => t.startsWith('{"data"'),
    },
    {
      name: 'prepare as an MCP tool (preparePosition)',
      run: () =>
        send(`${service.url}/mcp`, 'POST', toolCall('preparePosition', { body: intent }), mcpHeaders),
      ok: (t) => t.includes('"structuredContent"') && !t.includes('"isError"'),
    },
  ];
  const rpcCount = () =>
    counterTotal(service.services.metrics!.registry, 'gateway_rpc_requests_total', { client: 'gateway' });
  series.push(
    ...(await interleavedSeries(
      calls.map((c) => c.name),
      REQUESTS,
      WARM_UP,
      async (k) => {
        const [status, text] = await calls[k]!.run();
        if (status !== 200 || !calls[k]!.ok(text))
          throw new Error(`${calls[k]!.name}: ${status} ${text.slice(0, 300)}`);
      },
      rpcCount,
    )),
  );
} finally {
  sequentialAgent.destroy();
  await bench.stop();
}

printLatencyTable(series);
const cpuOf = (name: string) => series.find((s) => s.name.startsWith(name))!.cpuMsPerCall ?? 0;
const overhead = {
  chains: {
    restMsPerCall: cpuOf('chains over REST'),
    mcpMsPerCall: cpuOf('chains as an MCP'),
    addedMs: Number((cpuOf('chains as an MCP') - cpuOf('chains over REST')).toFixed(3)),
  },
  prepare: {
    restMsPerCall: cpuOf('prepare over REST'),
    mcpMsPerCall: cpuOf('prepare as an MCP'),
    addedMs: Number((cpuOf('prepare as an MCP') - cpuOf('prepare over REST')).toFixed(3)),
  },
};
for (const [what, o] of Object.entries(overhead))
  console.log(
    `${what}: REST ${o.restMsPerCall} ms CPU per call, MCP ${o.mcpMsPerCall} ms (+${o.addedMs} ms)`,
  );
const file = writeResult('mcp', {
  benchmark:
    '/mcp tool calls against the same REST calls: CPU per call of the in-process gateway and its client',
  series,
  overhead,
  machine: machine(),
  measuredAt: new Date().toISOString(),
});
console.log(`written ${file}`);
