import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isApiError } from '../../lib/errors.js';
import { createDb, type Db } from '../../store/db.js';
import { migrate } from '../../store/migrate.js';
import { type ListStrategiesParams, listOpenStrategies } from '../../store/strategyList.js';
import { fixtureChains, insertStrategy, insertStrategyGrid } from '../helpers/catalogue.js';
import { createTestDatabase, testPool } from '../helpers/postgres.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * The list read path under concurrency, on the machine PostgreSQL: requests that arrive together are
 * answered by one batched statement (store/batch.ts) and each must still get exactly its own page;
 * entries rendered by the store (migration 006) must say what the columns say, and rows the store
 * cannot render (a symbol not known yet) are still listed, built from their columns.
 */

const chains = fixtureChains();
const [base, arc] = chains as [(typeof chains)[0], (typeof chains)[0]];
const T0 = Date.parse('2025-06-01T00:00:00Z');
let database: { url: string; drop(): Promise<void> };
let db: Db;
let svc: TestService;

beforeAll(async () => {
  database = await createTestDatabase();
  db = testPool(database.url, 4);
  await migrate(db);
  await insertStrategyGrid(db, chains, { perPair: 7, t0: T0, withSwaps: true });
  svc = await startTestService({ env: { DATABASE_URL: database.url, INDEXER: 'off' }, chains });
});

afterAll(async () => {
  await svc?.stop();
  await db?.end();
  await database?.drop();
});

describe('batched list reads', () => {
  it('gives each of many concurrent requests exactly the page it would get alone', async () => {
    const requests: ListStrategiesParams[] = [];
    for (const chain of [base.key, arc.key, null]) {
      for (const pair of ['USDC/USDT', 'EURC/USDC', null]) {
        for (const sort of ['recent', 'volume'] as const) {
          for (const limit of [1, 3, 20]) {
            requests.push({
              sort,
              chains: chain ? [chain] : null,
              pairs: pair ? [pair] : null,
              after: null,
              limit,
              projection: limit === 3 ? 'summaries' : 'full',
            });
          }
        }
      }
    }
    // Pages 2: after the last row of each page 1.
    const alone: Awaited<ReturnType<typeof listOpenStrategies>>[] = [];
    for (const params of requests) alone.push(await listOpenStrategies(db, params));
    const second = requests.map((params, i) => {
      const last = alone[i]![params.limit - 1];
      return last
        ? { ...params, after: { value: last.sort_value, hash: last.strategy_hash, chain: last.chain_key } }
        : null;
    });
    const all = [...requests, ...second.filter((p) => p !== null)];
    const secondAlone: Awaited<ReturnType<typeof listOpenStrategies>>[] = [];
    for (const params of second) if (params) secondAlone.push(await listOpenStrategies(db, params));

    // Every request at once, each twice: one statement per shape, duplicates sharing a result.
    const together = await Promise.all([...all, ...all].map((params) => listOpenStrategies(db, params)));
    const expected = [...alone, ...secondAlone];
    expect(together).toEqual([...expected, ...expected]);
    // The filters really held: no page mixes chains or pairs it was not asked for.
    for (const [i, params] of all.entries()) {
      for (const row of together[i]!) {
        if (params.chains) expect(params.chains).toContain(row.chain_key);
        if (params.pairs)
          expect(params.pairs).toContain(row.pair_key ?? row.list_json?.match(/"pair":"([^"]+)"/)?.[1]);
      }
      expect(together[i]!.length).toBeLessThanOrEqual(params.limit + 1);
    }
  });

  it('fails every waiting request with the retryable envelope when the store is unreachable', async () => {
    const down = createDb('postgres://postgres@127.0.0.1:1/none', 2);
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        listOpenStrategies(down, {
          sort: 'recent',
          chains: [i % 2 ? base.key : arc.key],
          pairs: null,
          after: null,
          limit: 5,
        }),
      ),
    );
    await down.end();
    for (const result of results) {
      expect(result.status).toBe('rejected');
      const reason = (result as PromiseRejectedResult).reason;
      expect(isApiError(reason) && reason.code).toBe('UPSTREAM_UNAVAILABLE');
    }
  });
});

describe('entries rendered by the store', () => {
  it('are kept in step with every change of the row', async () => {
    const { rows } = await db.query<{ list_json: string; volume_usd: number; status: string }>(
      `UPDATE strategies SET volume_usd = 1234.5, swap_count = 9, last_swap_at = '2025-07-01T10:00:00.123Z'
        WHERE strategy_hash = (SELECT strategy_hash FROM strategies ORDER BY shipped_at LIMIT 1)
        RETURNING list_json, volume_usd, status`,
    );
    const entry = JSON.parse(rows[0]!.list_json) as Record<string, unknown>;
    expect(entry).toMatchObject({ volumeUsd: 1234.5, swapCount: 9, lastSwapAt: '2025-07-01T10:00:00.123Z' });
  });

  it('lists a strategy whose token symbol is not known yet, built from its columns', async () => {
    const odd = await insertStrategy(db, {
      chain: arc,
      symbols: ['USDC', 'USDT'],
      salt: 999n,
      shippedAt: new Date(T0 + 10 * 86_400_000),
    });
    await db.query('UPDATE strategies SET symbol_b = NULL WHERE strategy_hash = $1', [odd.hash]);
    const { rows } = await db.query<{ list_json: string | null }>(
      'SELECT list_json FROM strategies WHERE strategy_hash = $1',
      [odd.hash],
    );
    expect(rows[0]!.list_json).toBeNull();

    const res = await svc.get(`/api/strategies?chain=${arc.key}&pair=USDC/USDT&limit=2`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      data: {
        strategies: Array<{ hash: string; chainId: number; tokens: Array<{ symbol: string | null }> }>;
      };
    };
    const [first, second] = body.data.strategies;
    expect(first!.hash).toBe(odd.hash);
    expect(first!.chainId).toBe(arc.chainId);
    // The token loader names it from the registry; the rendered neighbour keeps its own symbols.
    expect(first!.tokens.map((t) => t.symbol).sort()).toEqual(['USDC', 'USDT']);
    expect(second!.tokens.map((t) => t.symbol).sort()).toEqual(['USDC', 'USDT']);
    expect(second!.chainId).toBe(arc.chainId);
    // Built from columns or rendered by the store, an entry has the documented fields in their order.
    expect(Object.keys(first!)).toEqual(Object.keys(second!));
    expect(Object.keys(first!).slice(0, 3)).toEqual(['hash', 'chain', 'chainId']);
    expect(Object.keys(first!.tokens[0]!)).toEqual(Object.keys(second!.tokens[0]!));
    expect(Object.keys(first!.tokens[0]!).slice(0, 2)).toEqual(['symbol', 'address']);
  });

  it('reads a row it cannot render (three tokens) with every column, as the full projection does', async () => {
    const odd = await insertStrategy(db, {
      chain: base,
      symbols: ['USDC', 'USDT'],
      salt: 998n,
      shippedAt: new Date(T0 + 20 * 86_400_000),
      volumeUsd: 12.5,
      swapCount: 3,
    });
    await db.query(
      `UPDATE strategies SET token_a = NULL, token_b = NULL, pair_key = NULL,
              tokens = '[{"address":"0x01","symbol":"A","decimals":6},{"address":"0x02","symbol":"B","decimals":6},{"address":"0x03","symbol":"C","decimals":18}]'::jsonb
        WHERE strategy_hash = $1`,
      [odd.hash],
    );
    const params: ListStrategiesParams = {
      sort: 'recent',
      chains: [base.key],
      pairs: null,
      after: null,
      limit: 2,
    };
    const [full, summaries] = await Promise.all([
      listOpenStrategies(db, { ...params, projection: 'full' }),
      listOpenStrategies(db, { ...params, projection: 'summaries' }),
    ]);
    expect(summaries[0]).toEqual(full[0]);
    expect(summaries[0]).toMatchObject({
      strategy_hash: odd.hash,
      list_json: null,
      volume_usd: 12.5,
      swap_count: 3,
    });
    expect((summaries[0]!.tokens as unknown[]).length).toBe(3);
    // A rendered row reads only what the list adds to its entry.
    expect(summaries[1]!.list_json).not.toBeNull();
    expect(summaries[1]!.maker).toBeNull();
    expect(full[1]!.maker).not.toBeNull();
  });
});
