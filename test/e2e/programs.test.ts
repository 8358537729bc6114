import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../devnet/devnet.js';
import { query } from '../../store/db.js';
import { expectMatchesContract } from '../helpers/contract.js';
import { startSeededDevnet } from '../helpers/devnetSnapshot.js';
import { testPort } from '../helpers/ports.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * Programs beyond the canonical one, end to end: the devnet ships two showcase strategies on base
 * (devnet/strategies.ts `showcaseStrategies`): a branching program with Jumps, guards, Decay,
 * XYCConcentrate and PeggedSwap, and one with an unknown opcode, short args and a truncated tail. The
 * indexer keeps both, the list shows both, the detail (REST and GraphQL) decodes them instruction by
 * instruction, and a quote stays refused (not a USDC/USDT strategy, SPEC §4.4).
 */

const BASE_PORT = testPort(19850);

let devnet: Devnet;
let dataDir: string;
let svc: TestService;
let client = 0;

// biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON checked field by field by the assertions.
type Body = Record<string, any>;

async function get(pathAndQuery: string): Promise<{ res: Response; body: Body }> {
  client++;
  const res = await svc.get(pathAndQuery, {
    headers: { 'x-forwarded-for': `10.78.${client >> 8}.${client & 255}` },
  });
  return { res, body: (await res.json()) as Body };
}

const BRANCHES = [
  'Deadline',
  'OnlyTakerTokenBalanceNonZero',
  'AquaProtocolFeeAmountIn',
  'JumpIfTokenIn',
  'Decay',
  'XYCConcentrateGrowLiquidity2D',
  'FlatFeeAmountIn',
  'XYCSwap',
  'Jump',
  'PeggedSwapGrowPriceRange2D',
  'Salt',
];
const UNREADABLE = ['XYCSwap', 'unknown', 'FlatFeeAmountIn', 'Salt', 'truncated'];

let branches: Body;
let unreadable: Body;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'programs-e2e-'));
  devnet = await startSeededDevnet({ basePort: BASE_PORT, dataDir, activityMs: 0 });
  svc = await startTestService({
    chains: devnet.chains,
    env: { TRUST_PROXY: '1', INDEXER: 'embedded', INDEXER_POLL_MS: '100', ROLLUP_REFRESH_MS: '300' },
  });
}, 120_000);

afterAll(async () => {
  await svc?.stop();
  await devnet?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('strategies with any program of the router table', () => {
  it('are in the open list, and their detail decodes every instruction', async () => {
    const { res, body } = await get('/api/strategies?chain=base&pair=USDC/EURC&limit=100');
    expect(res.status).toBe(200);
    const details: Body[] = [];
    for (const s of body.data.strategies as Body[]) {
      const detail = await get(`/api/strategy-detail?hash=${s.hash}&chain=base`);
      expect(detail.res.status).toBe(200);
      expectMatchesContract('GET', '/api/strategy-detail', detail.res, detail.body);
      details.push(detail.body.data);
    }
    const names = (d: Body) => d.decoded.program.map((i: Body) => i.name);
    branches = details.find((d) => names(d).includes('PeggedSwapGrowPriceRange2D'))!;
    unreadable = details.find((d) => names(d).includes('unknown'))!;
    expect(branches).toBeDefined();
    expect(unreadable).toBeDefined();
    expect(names(branches)).toEqual(BRANCHES);
    expect(names(unreadable)).toEqual(UNREADABLE);
    for (const d of [branches, unreadable]) {
      expect(d).toMatchObject({ status: 'active', chain: 'base', pair: 'EURC/USDC', verifiedRouter: true });
    }
  });

  it('shows the branching program with typed args and jump targets at instruction offsets', () => {
    const program: Body[] = branches.decoded.program;
    expect(program.every((i) => i.ok && i.error === null)).toBe(true);
    const at = (name: string) => program.find((i) => i.name === name)!;
    const arg = (name: string, argName: string) => at(name).typedArgs.find((a: Body) => a.name === argName);
    const eurc = devnet.chains.find((c) => c.key === 'base')!.tokens.find((t) => t.symbol === 'EURC')!;
    expect(arg('JumpIfTokenIn', 'token')).toEqual({
      name: 'token',
      type: 'address',
      value: getAddress(eurc.address),
    });
    expect(arg('JumpIfTokenIn', 'nextPC').value).toBe(String(at('PeggedSwapGrowPriceRange2D').offset));
    expect(arg('Jump', 'nextPC').value).toBe(String(at('Salt').offset));
    expect(arg('Deadline', 'deadline')).toEqual({ name: 'deadline', type: 'uint40', value: '4102444800' });
    expect(arg('Decay', 'period')).toEqual({ name: 'period', type: 'uint16', value: '300' });
    expect(at('PeggedSwapGrowPriceRange2D').typedArgs.map((a: Body) => [a.name, a.type])).toEqual([
      ['x0', 'uint256'],
      ['y0', 'uint256'],
      ['linearWidth', 'uint256'],
      ['rateLt', 'uint256'],
      ['rateGt', 'uint256'],
    ]);
    expect(arg('PeggedSwapGrowPriceRange2D', 'linearWidth').value).toBe((100n * 10n ** 27n).toString());
    // The args by name, as the detail always showed them.
    expect(at('AquaProtocolFeeAmountIn').decoded).toEqual({
      fee1e9: 500_000,
      receiver: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
    });
    expect(at('FlatFeeAmountIn').decoded).toEqual({ fee1e9: 1_000_000 });
  });

  it('marks what it cannot decode instead of failing', () => {
    const program: Body[] = unreadable.decoded.program;
    expect(program.map((i) => i.ok)).toEqual([true, false, false, true, false]);
    const [, unknown, short, , cut] = program;
    expect(unknown).toMatchObject({ opcode: 0x40, args: '0xff', typedArgs: [] });
    expect(unknown!.error).toMatch(/outside the AquaSwapVMRouter v1\.0\.1 table/);
    expect(short).toMatchObject({ opcode: 21, args: '0x0001' });
    expect(short!.error).toMatch(/FlatFeeAmountIn takes uint32 fee1e9 \(4 bytes of args\); got 2 bytes/);
    expect(short!.decoded).toBeUndefined();
    expect(cut).toMatchObject({ opcode: 13, raw: '0x0d050000' });
    expect(cut!.error).toMatch(/Deadline .* declares 5 bytes of args; only 2 remain/);
  });

  it('serves the typed program on GraphQL', async () => {
    const read = (hash: string) =>
      svc.graphql<{ strategy: Body }>(
        `query($hash: String!) { strategy(hash: $hash, chain: "base") {
          program { table bytes decoded instructions { offset opcode name argsHex args { name type value } decoded error } }
        } }`,
        { hash },
      );
    const good = (await read(branches.hash)).strategy.program;
    expect(good).toMatchObject({ table: 'AquaSwapVMRouter v1.0.1', decoded: true });
    expect(good.bytes).toBe((branches.decoded.order.data.length - 2) / 2);
    expect(good.instructions.map((i: Body) => i.name)).toEqual(BRANCHES);
    expect(good.instructions.find((i: Body) => i.name === 'Decay')).toMatchObject({
      opcode: 19,
      argsHex: '0x012c',
      args: [{ name: 'period', type: 'uint16', value: '300' }],
      decoded: true,
      error: null,
    });
    const bad = (await read(unreadable.hash)).strategy.program;
    expect(bad.decoded).toBe(false);
    expect(bad.instructions.map((i: Body) => [i.name, i.decoded])).toEqual(
      UNREADABLE.map((name, k) => [name, [true, false, false, true, false][k]]),
    );
    expect(
      bad.instructions.filter((i: Body) => !i.decoded).every((i: Body) => i.error && i.args.length === 0),
    ).toBe(true);
  });

  it('keeps them in the indexed catalogue, and a quote of them stays refused', async () => {
    const { rows } = await query<{ n: number }>(
      svc.services.db,
      "SELECT count(*)::int AS n FROM strategies WHERE chain_key = 'base' AND strategy_hash = ANY($1)",
      [[branches.hash, unreadable.hash]],
    );
    expect(rows[0]!.n).toBe(2);
    for (const hash of [branches.hash, unreadable.hash]) {
      const { res, body } = await get(`/api/quote?hash=${hash}&chain=base&amount=1000000`);
      expect(res.status).toBe(422);
      expect(body.error.code).toBe('UNPROCESSABLE');
    }
  });
});
