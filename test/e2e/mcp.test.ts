/**
 * An agent on /mcp with the MCP SDK's own client over HTTP: it lists the tools, reads the catalogue,
 * quotes, prepares a position whose `calls` the devnet wallet sends unchanged, and reads its status;
 * an unauthorised or rate-limited call answers a tool error carrying the REST error code.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Hex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPort } from '../helpers/ports.js';
import { MNEMONIC, mintCalldata, startWritePath, UNIT, type WritePath } from '../helpers/writePath.js';

const BASE_PORT = testPort(19870);
const PROXY_PORT = testPort(19873);
let w: WritePath;
let makerKey: string;
const maker = mnemonicToAccount(MNEMONIC, { addressIndex: 9 });
const maker9Account = maker;
const maker9 = maker.address;

const READS = [
  'getStats',
  'getChains',
  'getStrategies',
  'getStrategyDetail',
  'getStrategyActivity',
  'getMaker',
  'getMakerLeaderboard',
  'getQuote',
];
const KEYED = [
  'preparePosition',
  'preparePositionApprovals',
  'preparePositionDock',
  'rebalancePosition',
  'prepareSwap',
  'getPosition',
  'listPositions',
];

async function agent(key?: string): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${w.svc.url}/mcp`), {
    requestInit: key ? { headers: { authorization: `Bearer ${key}` } } : {},
  });
  await client.connect(transport);
  return client;
}

interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: { type: string; text?: string }[];
}
const callTool = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as ToolAnswer;
const errorOf = (answer: ToolAnswer) =>
  (answer.structuredContent as { error: { code: string; parameter?: string } }).error;

const intent = () => ({
  chain: 'base',
  wallet: maker.address,
  deposits: [
    { symbol: 'USDC', amount: (1_000n * UNIT).toString() },
    { symbol: 'USDT', amount: (1_000n * UNIT).toString() },
  ],
});

beforeAll(async () => {
  w = await startWritePath({ basePort: BASE_PORT, proxyPort: PROXY_PORT, name: 'mcp-e2e' });
  makerKey = (await w.svc.createKey({ environment: 'LIVE', prepareLimitPerMinute: 1000, label: 'agent' }))
    .key;
  for (const symbol of ['USDC', 'USDT']) {
    await w.send(maker, { to: w.token(symbol), data: mintCalldata(maker.address, 10_000n * UNIT) });
  }
  await w.indexer.syncNow();
}, 180_000);

afterAll(async () => {
  await w?.stop();
});

describe('the MCP server', () => {
  it('lists a tool for each operation an agent needs, each with its schema, description and hints', async () => {
    const client = await agent();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([...READS, ...KEYED]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.description?.length).toBeGreaterThan(40);
      expect(tool.annotations?.destructiveHint).toBe(false);
      // Reads and a key's own reads (status, list) change nothing; a prepare stores the prepared position.
      expect(tool.annotations?.readOnlyHint).toBe(
        tool.name.startsWith('get') || tool.name.startsWith('list'),
      );
    }
    const prepare = tools.find((t) => t.name === 'preparePosition')!;
    expect(prepare.description).toMatch(/Nothing is signed, sent or moved/);
    // The REST path's header and body, as arguments.
    expect(Object.keys(prepare.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['idempotencyKey', 'body']),
    );
    expect(prepare.inputSchema.required).toEqual(['body']);
    // The schemas stand alone: no reference into the OpenAPI components an agent does not have.
    expect(JSON.stringify(tools)).not.toContain('#/components');
    const quote = tools.find((t) => t.name === 'getQuote')!;
    expect(quote.inputSchema.required).toEqual(['hash', 'amount']);
    await client.close();
  });

  it('answers each read as the REST path does', async () => {
    const client = await agent();
    const list = await callTool(client, 'getStrategies', { chain: 'base', limit: 5 });
    expect(list.isError).toBeUndefined();
    const strategies = (list.structuredContent as { data: { strategies: { hash: Hex; pair: string }[] } })
      .data.strategies;
    expect(strategies.length).toBeGreaterThan(0);
    const rest = (await (
      await w.svc.get('/api/strategies?chain=base&limit=5')
    ).json()) as typeof list.structuredContent;
    expect((list.structuredContent as { data: unknown }).data).toEqual((rest as { data: unknown }).data);

    const stable = strategies.find((s) => s.pair === 'USDC/USDT') ?? strategies[0]!;
    const args = { chain: 'base', hash: stable.hash, amount: String(100n * UNIT) };
    const viaMcp = await callTool(client, 'getQuote', args);
    const viaRest = await (
      await w.svc.get(`/api/quote?chain=base&hash=${stable.hash}&amount=${args.amount}`)
    ).json();
    expect(viaMcp.isError).toBeUndefined();
    expect((viaMcp.structuredContent as { data: unknown }).data).toEqual((viaRest as { data: unknown }).data);
    expect(JSON.parse(viaMcp.content[0]!.text!)).toEqual(viaMcp.structuredContent);

    const detail = await callTool(client, 'getStrategyDetail', { chain: 'base', hash: stable.hash });
    expect((detail.structuredContent as { data: { hash: string } }).data.hash).toBe(stable.hash);
    await client.close();
  });

  it('answers every other tool as its REST path does', async () => {
    const client = await agent(makerKey);
    const same = async (name: string, args: Record<string, unknown>, path: string, init?: RequestInit) => {
      const viaMcp = await callTool(client, name, args);
      const res = await w.svc.get(path, {
        ...init,
        headers: {
          authorization: `Bearer ${makerKey}`,
          ...(init?.body ? { 'content-type': 'application/json' } : {}),
        },
      });
      const viaRest = (await res.json()) as { data?: unknown; error?: { code: string } };
      expect([name, viaMcp.isError ?? false]).toEqual([name, res.status >= 400]);
      return { mcp: viaMcp.structuredContent as { data?: unknown; error?: { code: string } }, rest: viaRest };
    };
    const chains = await same('getChains', {}, '/api/chains');
    expect(chains.mcp.data).toEqual(chains.rest.data);
    const list = (await (await w.svc.get('/api/strategies?chain=base&limit=1')).json()) as {
      data: { strategies: { hash: string; maker: string }[] };
    };
    const { hash, maker: owner } = list.data.strategies[0]!;
    const maker = await same(
      'getMaker',
      { address: owner, chain: 'base' },
      `/api/makers/${owner}?chain=base`,
    );
    // The time-weighted figures move with the clock between the two calls (the leaderboard's at each
    // roll-up refresh): everything else is the same answer.
    const steady = (data: unknown) =>
      JSON.parse(JSON.stringify(data), (k, v) =>
        k === 'apy' || k === 'averageLiquidityUsd' || k === 'until' || k === 'rankedAt' ? undefined : v,
      );
    expect(steady(maker.mcp.data)).toEqual(steady(maker.rest.data));
    const board = await same(
      'getMakerLeaderboard',
      { sort: 'fees', period: '30d', chain: 'base' },
      '/api/makers?sort=fees&period=30d&chain=base',
    );
    expect(steady(board.mcp.data)).toEqual(steady(board.rest.data));
    const activity = await same(
      'getStrategyActivity',
      { chain: 'base', hash },
      `/api/strategies/${hash}/activity?chain=base`,
    );
    expect(activity.mcp.data ?? activity.mcp.error?.code).toEqual(
      activity.rest.data ?? activity.rest.error?.code,
    );
    // The keyed writes: the answers carry a fresh preparedAt, so their steps are compared.
    const swapBody = { chain: 'base', hash, wallet: maker9, amount: String(10n * UNIT), direction: 'aToB' };
    const swap = await same('prepareSwap', { body: swapBody }, '/v1/swaps', {
      method: 'POST',
      body: JSON.stringify(swapBody),
    });
    // The steps of an answer, or the code of a refusal.
    const steps = (x: { data?: unknown; error?: { code: string } }) =>
      x.data
        ? (x.data as { transactions: { purpose: string; to: string }[] }).transactions.map((t) => [
            t.purpose,
            t.to,
          ])
        : x.error?.code;
    expect(steps(swap.mcp)).toEqual(steps(swap.rest));
    const opened = await callTool(client, 'preparePosition', { body: intent() });
    const id = (
      opened.structuredContent as {
        data: { strategyHash: Hex; calls: { calls: { to: Hex; data: Hex; value: Hex }[] } };
      }
    ).data;
    for (const c of id.calls.calls)
      await w.send(maker9Account, { to: c.to, data: c.data, value: BigInt(c.value) });
    await w.indexer.syncNow();
    const approvals = await same(
      'preparePositionApprovals',
      { positionId: id.strategyHash },
      `/v1/positions/${id.strategyHash}/approvals`,
      { method: 'POST' },
    );
    expect(steps(approvals.mcp)).toEqual(steps(approvals.rest));
    const moved = await callTool(client, 'rebalancePosition', {
      positionId: id.strategyHash,
      body: intent(),
    });
    expect(moved.isError, moved.content[0]?.text).toBeUndefined();
    const data = (
      moved.structuredContent as { data: { replaces: string; transactions: { purpose: string }[] } }
    ).data;
    expect([data.replaces, data.transactions[0]!.purpose]).toEqual([id.strategyHash, 'dock']);
    await client.close();
  });

  it('refuses a malformed or missing argument with the REST code, naming it', async () => {
    const client = await agent();
    const hash = `0x${'ab'.repeat(32)}`;
    const bad = await callTool(client, 'getQuote', { chain: 'base', hash, amount: 'lots' });
    expect([bad.isError, errorOf(bad).code, errorOf(bad).parameter]).toEqual([
      true,
      'INVALID_PARAMETER',
      'amount',
    ]);
    const missing = await callTool(client, 'getQuote', { chain: 'base', amount: '1' });
    expect([missing.isError, errorOf(missing).code, errorOf(missing).parameter]).toEqual([
      true,
      'INVALID_PARAMETER',
      'hash',
    ]);
    const stray = await callTool(client, 'getStats', { colour: 'blue' });
    expect([stray.isError, errorOf(stray).code, errorOf(stray).parameter]).toEqual([
      true,
      'INVALID_PARAMETER',
      'colour',
    ]);
    await expect(client.callTool({ name: 'signForMe', arguments: {} })).rejects.toThrow(
      /No tool named signForMe/,
    );
    await client.close();
  });

  it('prepares a position whose calls the wallet sends unchanged, then reads it back', async () => {
    const client = await agent(makerKey);
    const prepared = await callTool(client, 'preparePosition', { body: intent() });
    expect(prepared.isError, JSON.stringify(prepared.structuredContent)).toBeUndefined();
    const data = (
      prepared.structuredContent as {
        data: { strategyHash: Hex; calls: { from: string; calls: { to: Hex; data: Hex; value: Hex }[] } };
      }
    ).data;
    expect(data.calls.from.toLowerCase()).toBe(maker.address.toLowerCase());
    for (const call of data.calls.calls)
      await w.send(maker, { to: call.to, data: call.data, value: BigInt(call.value) });
    await w.indexer.syncNow();
    const status = await callTool(client, 'getPosition', { positionId: data.strategyHash });
    expect(status.isError, status.content[0]?.text).toBeUndefined();
    expect((status.structuredContent as { data: { status: string } }).data.status).toBe('shipped');
    const mine = await callTool(client, 'listPositions', {});
    const listed = (mine.structuredContent as { data: { positions: { strategyHash: string }[] } }).data
      .positions;
    expect(listed.map((p) => p.strategyHash)).toContain(data.strategyHash);
    // A path express routes (a path parameter), with a POST: its dock, sent as returned.
    const dock = await callTool(client, 'preparePositionDock', { positionId: data.strategyHash });
    expect(dock.isError, dock.content[0]?.text).toBeUndefined();
    const docking = (
      dock.structuredContent as { data: { calls: { calls: { to: Hex; data: Hex; value: Hex }[] } } }
    ).data.calls.calls;
    for (const call of docking)
      await w.send(maker, { to: call.to, data: call.data, value: BigInt(call.value) });
    await w.indexer.syncNow();
    const after = await callTool(client, 'getPosition', { positionId: data.strategyHash });
    expect((after.structuredContent as { data: { status: string } }).data.status).toBe('docked');
    await client.close();
  });

  it('answers an unauthorised or rate-limited call with a tool error carrying the REST code', async () => {
    const anonymous = await agent();
    const refused = await callTool(anonymous, 'preparePosition', { body: intent() });
    expect([refused.isError, errorOf(refused).code]).toEqual([true, 'UNAUTHORIZED']);
    await anonymous.close();

    const { key } = await w.svc.createKey({
      environment: 'LIVE',
      prepareLimitPerMinute: 1,
      label: 'slow agent',
    });
    const limited = await agent(key);
    const first = await callTool(limited, 'preparePosition', { body: intent() });
    expect(first.isError, JSON.stringify(first.structuredContent)).toBeUndefined();
    const second = await callTool(limited, 'preparePosition', { body: intent() });
    expect([second.isError, errorOf(second).code]).toEqual([true, 'RATE_LIMITED']);
    await limited.close();
  });

  it('serves the guides and the OpenAPI document as resources', async () => {
    const client = await agent();
    const { resources } = await client.listResources();
    const openapi = resources.find((r) => r.name === 'openapi')!;
    expect(openapi.uri).toMatch(/^https?:\/\/.+\/openapi\.json$/);
    const document = await client.readResource({ uri: openapi.uri });
    const text = (document.contents[0] as { text: string }).text;
    expect((JSON.parse(text) as { openapi: string }).openapi).toMatch(/^3\./);
    const guide = resources.find((r) => r.mimeType === 'text/markdown')!;
    const read = await client.readResource({ uri: guide.uri });
    expect((read.contents[0] as { text: string }).text).toMatch(/^# /m);
    const served = await w.svc.get(new URL(guide.uri).pathname);
    expect(await served.text()).toBe((read.contents[0] as { text: string }).text);
    await client.close();
  });

  it('takes POST only', async () => {
    const res = await w.svc.get('/mcp');
    expect(res.status).toBe(405);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('METHOD_NOT_ALLOWED');
  });
});
