import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../contract/openapi.js';
import { routes } from '../../rest/routes/index.js';

/**
 * The quick start of the README and the integrator guide, written against a client generated from the
 * published document (openapi-typescript's types, openapi-fetch's client) and compiled under strict
 * TypeScript: every call, parameter and field it uses must type-check without a cast, so an integer
 * parameter is a number, the list's five shapes are told apart by `data.resource`, and a response field
 * the guide reads exists where the guide says.
 */

const EXAMPLES = `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const api = createClient<paths>({ baseUrl: 'http://127.0.0.1:8080' });
const key = 'svc_test_example_secret';
const headers = { Authorization: \`Bearer \${key}\` };

export async function quickStart(wallet: string, taker: string): Promise<void> {
  const stats = await api.GET('/api/stats');
  const strategies: number | undefined = stats.data?.data.totals.strategies;
  const chains = await api.GET('/api/chains');
  const firstChain: string | undefined = chains.data?.data.chains[0]?.key;

  const list = await api.GET('/api/strategies', {
    params: { query: { chain: 'base', pair: 'USDC/USDT', limit: 5 } },
  });
  let hash: string | undefined;
  if (list.data?.data.resource === 'list') {
    hash = list.data.data.strategies.find((s) => s.verifiedRouter)?.hash;
    let cursor: string | null = list.data.data.page.nextCursor;
    while (cursor !== null) {
      const next = await api.GET('/api/strategies', { params: { query: { chain: 'base', limit: 5, cursor } } });
      cursor = next.data?.data.resource === 'list' ? next.data.data.page.nextCursor : null;
    }
  }
  const search = await api.GET('/api/strategies', { params: { query: { resource: 'search', q: 'usdc base' } } });
  const unmatched: string[] = search.data?.data.resource === 'search' ? search.data.data.query.unmatched : [];
  if (list.error) {
    const code: string = list.error.error.code;
    const parameter: string | undefined = list.error.error.parameter;
    console.log(code, parameter);
  }
  if (hash === undefined) return;

  const detail = await api.GET('/api/strategy-detail', { params: { query: { hash, chain: 'base' } } });
  const maker: string | undefined = detail.data?.data.maker;
  const activity = await api.GET('/api/strategies/{hash}/activity', {
    params: { path: { hash }, query: { chain: 'base', granularity: 'day' } },
  });
  if (maker) await api.GET('/api/makers/{address}', { params: { path: { address: maker }, query: { chain: 'base' } } });
  const quote = await api.GET('/api/quote', {
    params: { query: { hash, chain: 'base', amount: '1000000', direction: 'aToB' } },
  });
  const amountOut: string | undefined = quote.data?.data.amountOut;
  const fee: string | undefined = quote.data?.data.protocolFee.percent;

  const opened = await api.POST('/v1/positions', {
    headers,
    body: {
      chain: 'baseSepolia',
      wallet,
      deposits: [
        { symbol: 'USDC', amount: '10000000000' },
        { symbol: 'USDT', amount: '10000000000' },
      ],
      makerFeeBps: 30000,
      checkBalances: true,
    },
  });
  if (!opened.data) return;
  const positionId = opened.data.data.strategyHash;
  for (const tx of opened.data.data.transactions) {
    const step: { to: string; data: string; value: string } = tx;
    console.log(tx.step, tx.purpose, step);
  }
  const review: boolean = opened.data.data.preflight?.status === 'review';
  const status = await api.GET('/v1/positions/{positionId}', { params: { path: { positionId } }, headers });
  const state: string | undefined = status.data?.data.status;
  const mine = await api.GET('/v1/positions', { params: { query: { status: 'filled', limit: 20 } }, headers });
  const count: number | undefined = mine.data?.data.positions.length;
  const swap = await api.POST('/v1/swaps', {
    headers,
    body: { chain: 'baseSepolia', hash: positionId, wallet: taker, amount: '1000000', direction: 'aToB' },
  });
  const minOut: string | undefined = swap.data?.data.quote.minAmountOut;
  const topUp = await api.POST('/v1/positions/{positionId}/approvals', { params: { path: { positionId } }, headers });
  const dock = await api.POST('/v1/positions/{positionId}/dock', { params: { path: { positionId } }, headers });
  const steps: number = (topUp.data?.data.transactions.length ?? 0) + (dock.data?.data.transactions.length ?? 0);
  const hook = await api.POST('/v1/webhooks', {
    headers,
    body: { url: 'http://127.0.0.1:8099/hook', events: ['position.shipped', 'position.filled', 'position.docked'] },
  });
  const secret: string | undefined = hook.data?.data.secret;
  console.log(strategies, firstChain, unmatched, activity.data, amountOut, fee, review, state, count, minOut, steps, secret);
}
`;

describe('the README examples against a generated client', async () => {
  const document = buildOpenApi(routes, {
    publicUrl: 'https://liquidity.example.org',
    docsUrl: 'https://liquidity.example.org/docs',
  });
  // biome-ignore lint/suspicious/noExplicitAny: openapi-typescript types its input as its own OpenAPI3 shape.
  const types = astToString(await openapiTS(document as any));
  // Inside the repository, so that `openapi-fetch` resolves from its node_modules; test-results/ is ignored.
  const dir = join(process.cwd(), 'test-results', `readme-client-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function compile(examples: string): string[] {
    writeFileSync(join(dir, 'api.ts'), types);
    writeFileSync(join(dir, 'examples.ts'), examples);
    const program = ts.createProgram([join(dir, 'examples.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
      types: [],
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    });
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    return ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) =>
          `${d.file ? d.file.fileName.slice(dir.length + 1) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
      );
  }

  it('compiles without a cast', () => {
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    expect(compile(EXAMPLES)).toEqual([]);
  });

  it('refuses what the document does not allow (the check can fail)', () => {
    const wrong = EXAMPLES.replace("pair: 'USDC/USDT', limit: 5", "pair: 'USDC/USDT', limit: '5'").replace(
      'hash = list.data.data.strategies',
      'hash = list.data.data.strategy.hash ?? list.data.data.strategies',
    );
    expect(wrong).not.toBe(EXAMPLES);
    const errors = compile(wrong);
    expect(errors, errors.join('\n')).toHaveLength(2);
    expect(errors.some((e) => /Type 'string' is not assignable to type 'number'/.test(e))).toBe(true);
    expect(errors.some((e) => /'list.data.data.strategy' is of type 'unknown'/.test(e))).toBe(true);
  });
});
