import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCatalogue } from '../../bench/generate.js';
import type { Db } from '../../store/db.js';
import { migrate } from '../../store/migrate.js';
import { fixtureChains, insertStrategy } from '../helpers/catalogue.js';
import { createTestDatabase, testPool } from '../helpers/postgres.js';

/**
 * The benches' catalogue generator (bench/generate.ts), small, on the machine PostgreSQL: its rows must
 * be what the indexer would have written, or the benches measure another read path: every list entry
 * rendered (migration 006), totals that are the sums of the swaps, roll-up counts that match the rows,
 * and the counting triggers on again afterwards.
 */

const chains = fixtureChains(3);
let database: { url: string; drop(): Promise<void> };
let db: Db;

beforeAll(async () => {
  database = await createTestDatabase();
  db = testPool(database.url, 4);
  await migrate(db);
  await generateCatalogue(db, { strategies: 600, swaps: 6_000, chains });
}, 60_000);

afterAll(async () => {
  await db?.end();
  await database?.drop();
});

describe('generateCatalogue', () => {
  it('renders the list entry of every strategy, as the trigger renders it from the columns', async () => {
    const { rows } = await db.query<{
      strategy_hash: string;
      chain_key: string;
      pair_key: string;
      volume_usd: number;
      swap_count: number;
      status: string;
      list_json: string | null;
    }>(
      'SELECT strategy_hash, chain_key, pair_key, volume_usd, swap_count, status, list_json FROM strategies',
    );
    expect(rows.length).toBe(600);
    for (const row of rows) {
      expect(row.list_json, row.strategy_hash).not.toBeNull();
      const entry = JSON.parse(row.list_json!) as Record<string, unknown>;
      expect(entry).toMatchObject({
        hash: row.strategy_hash,
        chain: row.chain_key,
        pair: row.pair_key,
        volumeUsd: row.volume_usd,
        swapCount: row.swap_count,
        status: row.status,
      });
    }
  });

  it('gives each strategy the volume and swap count of its own swaps', async () => {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM strategies s
         LEFT JOIN (SELECT chain_key, strategy_hash, count(*)::int AS swaps, sum(volume_usd) AS volume
                      FROM swaps GROUP BY 1, 2) w USING (chain_key, strategy_hash)
        WHERE s.swap_count <> coalesce(w.swaps, 0) OR abs(s.volume_usd - coalesce(w.volume, 0)) > 1e-6`,
    );
    expect(rows[0]!.n).toBe(0);
    const { rows: total } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM swaps');
    expect(total[0]!.n).toBe(6_000);
  });

  it('leaves the roll-up counts equal to the rows, and their triggers counting again', async () => {
    const counted = async () =>
      (
        await db.query<{ counts: number; rows: number }>(
          `SELECT (SELECT sum(strategies)::int FROM catalogue_pair_counts) AS counts,
                  (SELECT count(*)::int FROM strategies) AS rows`,
        )
      ).rows[0]!;
    expect(await counted()).toEqual({ counts: 600, rows: 600 });
    await insertStrategy(db, {
      chain: chains[0]!,
      symbols: ['USDC', 'USDT'],
      salt: 987_654_321n,
      shippedAt: new Date(),
    });
    expect(await counted()).toEqual({ counts: 601, rows: 601 });
  });
});
