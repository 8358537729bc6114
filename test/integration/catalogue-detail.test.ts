import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredFixture } from '../helpers/catalogue.js';
import type { TestService } from '../helpers/service.js';
import { api, at, type Body, invalid, json, type Strategy, startCatalogue } from './catalogue/fixture.js';

/**
 * GET /api/strategy-detail over a socket, against the rows of catalogue/fixture.ts written straight
 * into a fresh database (the indexer is off; the detail reads no roll-up): an open strategy with its
 * decoded program and swaps (and the graph's typed twin), a docked one, one hash on two chains, and
 * validation.
 */

let svc: TestService;
let stored: StoredFixture[];
let docked: StoredFixture;
let twin: { base: StoredFixture; arc: StoredFixture };
beforeAll(async () => {
  ({ svc, stored, docked, twin } = await startCatalogue({ writeRollup: false }));
});
afterAll(async () => svc?.stop());

describe('GET /api/strategy-detail', () => {
  it('describes an open strategy with its decoded program and recent swaps', async () => {
    const res = await api(`/api/strategy-detail?hash=${stored[0]!.hash.toUpperCase().replace('0X', '0x')}`);
    expect(res.headers.get('ratelimit-policy')).toBe('strategy-detail;w=60;limit=60');
    const body = (await res.json()) as { data: Body };
    const d = body.data;
    expect(d).toMatchObject({
      hash: stored[0]!.hash,
      chain: 'base',
      status: 'active',
      docked: null,
      alsoOnChains: [],
    });
    expect(d.strategy).toBe(stored[0]!.strategy);
    expect(d.decoded.order).toMatchObject({ useAqua: true, traits: (1n << 254n).toString() });
    expect(d.decoded.program.map((i: { name: string }) => i.name)).toEqual([
      'AquaProtocolFeeAmountIn',
      'XYCSwap',
      'Salt',
    ]);
    expect(d.decoded.program[0].decoded).toMatchObject({ fee1e9: 500_000 });
    expect(d.recentSwaps).toHaveLength(1);
    expect(d.recentSwaps[0]).toMatchObject({
      block: 777,
      amountIn: '1000000',
      amountOut: '999000',
      volumeUsd: 1,
    });
    expect(typeof d.firstSeenAt).toBe('string');

    // The graph says the same with types: the order and the program's instructions and arguments.
    const typed = await svc.graphql<{
      strategy: {
        order: Record<string, unknown>;
        program: { instructions: { name: string; args: { name: string; value: string }[] }[] };
      };
    }>(
      `query { strategy(hash: "${stored[0]!.hash}", chain: "base") { order { maker traits useAqua data } program { instructions { name args { name value } } } } }`,
    );
    expect(typed.strategy.order).toEqual(d.decoded.order);
    expect(typed.strategy.program.instructions.map((i) => i.name)).toEqual(
      d.decoded.program.map((i: { name: string }) => i.name),
    );
    expect(typed.strategy.program.instructions[0]!.args).toContainEqual({ name: 'fee1e9', value: '500000' });
  });

  it('shows a docked strategy with its dock', async () => {
    const body = await json<{ data: Strategy }>(`/api/strategy-detail?hash=${docked.hash}`);
    expect(body.data.status).toBe('docked');
    expect(body.data.docked).toEqual({ at: at(200), block: 2200 });
    expect(body.data.tokens.map((t) => t.currentAmount)).toEqual(['0', '0']);
  });

  it('tells the same hash on two chains apart', async () => {
    const either = await json<{ data: Body }>(`/api/strategy-detail?hash=${twin.base.hash}`);
    expect(either.data.chain).toBe('arc');
    expect(either.data.alsoOnChains).toEqual(['base']);
    const onBase = await json<{ data: Body }>(`/api/strategy-detail?hash=${twin.base.hash}&chain=base`);
    expect(onBase.data).toMatchObject({ chain: 'base', alsoOnChains: ['arc'] });
  });

  it('validates hash and chain, and answers 404 for an unknown strategy', async () => {
    await invalid('/api/strategy-detail', 'hash');
    await invalid('/api/strategy-detail?hash=', 'hash');
    await invalid('/api/strategy-detail?hash=0x1234', 'hash');
    await invalid(`/api/strategy-detail?hash=${'ab'.repeat(32)}`, 'hash');
    await invalid(`/api/strategy-detail?hash=0x${'zz'.repeat(32)}`, 'hash');
    await invalid(`/api/strategy-detail?hash=0x${'ab'.repeat(32)}`, 'hash', 404, 'NOT_FOUND');
    await invalid(`/api/strategy-detail?hash=${docked.hash}&chain=arc`, 'hash', 404, 'NOT_FOUND');
  });
});
