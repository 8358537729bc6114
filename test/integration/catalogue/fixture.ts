import { expect } from 'vitest';
import { type CatalogueRollup, writeRollup } from '../../../store/rollups.js';
import {
  fixtureChains,
  insertStrategy,
  insertSwap,
  type StoredFixture,
  strategyBytes,
} from '../../helpers/catalogue.js';
import { startTestService, type TestService } from '../../helpers/service.js';

/**
 * The catalogue fixture shared by catalogue-stats, catalogue-list and catalogue-detail.test.ts: a
 * service over a socket (TRUST_PROXY on, the indexer off) against catalogue rows written straight
 * into a fresh database, the roll-up those rows stand for, and the request helpers. Each test file
 * calls startCatalogue() in its own beforeAll: its own service, database and Redis prefix, so what a
 * file adds (a strategy, a cached response) is seen by that file only.
 */

// biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON checked field by field by the assertions.
export type Body = Record<string, any>;

export const chains = fixtureChains();
export const [base, arc] = chains as [(typeof chains)[0], (typeof chains)[0]];
const T0 = Date.parse('2025-06-01T00:00:00Z');
export const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

let svc: TestService | undefined;
let client = 0;

/** Every call is its own client (TRUST_PROXY), so the 20-a-minute strategies bucket never interferes. */
export function api(path: string, init: RequestInit = {}) {
  if (!svc) throw new Error('startCatalogue() first');
  client++;
  return svc.get(path, {
    ...init,
    headers: { 'x-forwarded-for': `198.51.${client >> 8}.${client & 255}`, ...(init.headers ?? {}) },
  });
}

export async function json<T = Record<string, unknown>>(path: string, status = 200): Promise<T> {
  const res = await api(path);
  const body = (await res.json()) as T;
  if (res.status !== status) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  expect(res.status).toBe(status);
  return body;
}

export async function invalid(path: string, parameter: string, status = 400, code = 'INVALID_PARAMETER') {
  const res = await api(path);
  const body = (await res.json()) as { error: { code: string; parameter?: string; requestId: string } };
  expect({ path, status: res.status, code: body.error?.code, parameter: body.error?.parameter }).toEqual({
    path,
    status,
    code,
    parameter,
  });
  expect(body.error.requestId).toBe(res.headers.get('x-request-id'));
}

export interface Strategy {
  hash: string;
  chain: string;
  chainId: number;
  maker: string;
  app: string;
  verifiedRouter: boolean;
  pair: string;
  tokens: {
    symbol: string;
    address: string;
    decimals: number;
    initialAmount: string;
    currentAmount: string;
  }[];
  status: string;
  volumeUsd: number;
  swapCount: number;
  lastSwapAt: string | null;
  shipped: { at: string; block: number; tx: string };
  docked: { at: string; block: number } | null;
}
export interface ListBody {
  data: {
    resource: string;
    strategies: Strategy[];
    page: { limit: number; nextCursor: string | null; sort: string };
    query?: { q: string; chains: string[]; symbols: string[]; unmatched: string[] };
  };
  meta: Record<string, unknown>;
}

/** The roll-up the fixture's rows stand for; startCatalogue() fills in its chains, pairs and count. */
export const rollup: CatalogueRollup = {
  totals: {
    strategies: 0,
    makers: 5,
    pairs: 2,
    chains: 2,
    volume_1d_usd: 1234.5,
    volume_7d_usd: 950_000,
    volume_30d_usd: 1_234_567,
    last_activity: at(500),
  },
  chains: [],
  pairs: [],
};

export interface Catalogue {
  svc: TestService;
  /** Every open strategy of the fixture (the docked one is apart); a test that adds one pushes it here. */
  stored: StoredFixture[];
  docked: StoredFixture;
  /** The same bytes shipped on both chains: two strategies with one hash. */
  twin: { base: StoredFixture; arc: StoredFixture };
}

/**
 * Starts the service and inserts the fixture; with `writeRollup` the roll-up is written too (a file
 * that tests the answers before the first roll-up writes it itself).
 */
export async function startCatalogue(options: { writeRollup: boolean }): Promise<Catalogue> {
  svc = await startTestService({ chains, env: { TRUST_PROXY: '1', INDEXER: 'off' } });
  const db = svc.services.db;
  const stored: StoredFixture[] = [];
  // base: 24 open USDC/USDT (two share a shipped time), 5 open EURC/USDC, 1 docked USDC/USDT; arc: 4 open.
  for (let i = 0; i < 24; i++) {
    stored.push(
      await insertStrategy(db, {
        chain: base,
        symbols: i % 2 === 0 ? ['USDC', 'USDT'] : ['USDT', 'USDC'],
        shippedAt: at(i === 5 ? 4 : i),
        volumeUsd: (i * 37) % 11,
        swapCount: i % 3,
        salt: BigInt(i),
      }),
    );
  }
  for (let i = 0; i < 5; i++) {
    stored.push(
      await insertStrategy(db, {
        chain: base,
        symbols: ['EURC', 'USDC'],
        shippedAt: at(100 + i),
        salt: 1000n + BigInt(i),
      }),
    );
  }
  const docked = await insertStrategy(db, {
    chain: base,
    symbols: ['USDC', 'USDT'],
    status: 'docked',
    shippedAt: at(200),
    salt: 2000n,
  });
  for (let i = 0; i < 4; i++) {
    stored.push(
      await insertStrategy(db, {
        chain: arc,
        symbols: ['USDC', 'EURC'],
        shippedAt: at(300 + i),
        salt: 3000n + BigInt(i),
      }),
    );
  }
  // The same bytes shipped on both chains: two strategies with one hash.
  const maker = '0x00000000000000000000000000000000000abcde' as const;
  const bytes = strategyBytes(maker, 4242n, base.feeReceiver as `0x${string}`);
  const twin = {
    base: await insertStrategy(db, {
      chain: base,
      symbols: ['USDC', 'USDT'],
      maker,
      shippedAt: at(400),
      salt: 4242n,
      strategy: bytes,
    }),
    arc: await insertStrategy(db, {
      chain: arc,
      symbols: ['USDC', 'USDT'],
      maker,
      shippedAt: at(401),
      salt: 4243n,
      strategy: bytes,
    }),
  };
  stored.push(twin.base, twin.arc);
  await insertSwap(db, {
    chain: 'base',
    hash: stored[0]!.hash,
    maker: '0x0000000000000000000000000000000000000001',
    tokenIn: base.tokens[0]!.address.toLowerCase(),
    tokenOut: base.tokens[1]!.address.toLowerCase(),
    block: 777,
    at: at(10),
  });
  await db.query(
    `INSERT INTO indexer_checkpoints (chain_key, chain_id, last_block) VALUES ('base', 8453, 1234), ('arc', 5042, 99)`,
  );
  const open = (chain: string) => stored.filter((s) => s.chain === chain && s.status === 'active').length;
  rollup.chains = [
    {
      chain: 'base',
      chain_id: 8453,
      count: open('base'),
      makers: 4,
      pairs: 2,
      swaps_30d: 12,
      volume_1d_usd: 1000,
      volume_7d_usd: 900_000,
      volume_30d_usd: 1_200_000,
      last_activity: at(500),
    },
    {
      chain: 'arc',
      chain_id: 5042,
      count: open('arc'),
      makers: 2,
      pairs: 2,
      swaps_30d: 3,
      volume_1d_usd: 234.5,
      volume_7d_usd: 50_000,
      volume_30d_usd: 34_567,
      last_activity: at(450),
    },
  ];
  rollup.totals.strategies = open('base') + open('arc');
  rollup.pairs = [
    {
      pair: 'USDC/USDT',
      count: 26,
      chains: ['base', 'arc'],
      volume_1d_usd: 1000,
      volume_7d_usd: 900_000,
      volume_30d_usd: 1_200_000,
      last_activity: at(500),
    },
    {
      pair: 'EURC/USDC',
      count: 9,
      chains: ['base', 'arc'],
      volume_1d_usd: 234.5,
      volume_7d_usd: 50_000,
      volume_30d_usd: 34_567,
      last_activity: at(450),
    },
  ];
  if (options.writeRollup) await writeRollup(db, rollup);
  return { svc, stored, docked, twin };
}
