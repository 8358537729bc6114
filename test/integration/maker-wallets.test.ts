/**
 * The store of makers' wallets (migration 026) over a real database: which wallets a run reads first,
 * the pullable sums per chain and token (per maker, the smaller of its open virtual balances, its
 * wallet balance and its allowance), and each strategy's state as its balances and those reads make it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockChainStates } from '../../store/chainStateLock.js';
import type { Db } from '../../store/db.js';
import { pullableBalances, recordWalletReads, walletsToRead } from '../../store/makerWallets.js';
import { migrate } from '../../store/migrate.js';
import { createTestDatabase, testPool } from '../helpers/postgres.js';

let db: Db;
let drop: () => Promise<void>;
const [A, B] = ['0x00000000000000000000000000000000000000a1', '0x00000000000000000000000000000000000000b2'];
const [T1, T2, T3, T4] = [1, 2, 3, 4].map((n) => `0x${n.toString(16).padStart(40, '0')}`) as [
  string,
  string,
  string,
  string,
];

async function open(maker: string, token: string, amount: bigint): Promise<void> {
  await db.query(
    `INSERT INTO catalogue_balances (chain_key, maker, pair_key, token, symbol, decimals, amount)
     VALUES ('base', $1, 'USDC/USDT', $2, 'USDC', 6, $3)`,
    [maker, token, amount.toString()],
  );
}

const read = (maker: string, token: string, balance: bigint, allowance: bigint) => ({
  maker,
  token,
  balance,
  allowance,
});

/** An open USDC/USDT strategy (T1/T2) of `maker` holding `usdc` and no USDT, as the indexer stores a ship. */
async function shipUsdcUsdt(hash: string, maker: string, usdc: bigint): Promise<void> {
  await db.query(
    `INSERT INTO strategies (chain_key, strategy_hash, maker, app, strategy, token_a, token_b, symbol_a, symbol_b,
       decimals_a, decimals_b, pair_key, initial_a, initial_b, balance_a, balance_b, shipped_block, shipped_tx,
       shipped_at)
     VALUES ('base', $1, $2, $2, '0x', $3, $4, 'USDC', 'USDT', 6, 6, 'USDC/USDT', $5, 0, $5, 0, 1, $1, now())`,
    [hash, maker, T1, T2, usdc.toString()],
  );
}

beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  db = testPool(database.url, 4);
  await migrate(db);
  await open(A, T1, 1_000n);
  await open(A, T2, 1_000n);
  await open(B, T1, 300n);
});

afterAll(async () => {
  await db?.end();
  await drop?.();
});

describe('makers’ wallets', () => {
  it('reads the never-read first, then the least recently read, by their open tokens only', async () => {
    expect((await walletsToRead(db, 'base', 10)).map((w) => [w.maker, w.tokens])).toEqual([
      [A, [T1, T2]],
      [B, [T1]],
    ]);
    await recordWalletReads(db, 'base', [read(B, T1, 1_000n, 0n)], new Date('2026-12-01T00:00:00Z'));
    await recordWalletReads(
      db,
      'base',
      [read(A, T1, 500n, 2_000n), read(A, T2, 5_000n, 5_000n)],
      new Date('2026-12-02T00:00:00Z'),
    );
    // A token A no longer holds open, read long ago, does not make A the least recently read.
    await recordWalletReads(db, 'base', [read(A, T3, 1n, 1n)], new Date('2026-11-01T00:00:00Z'));
    expect((await walletsToRead(db, 'base', 1)).map((w) => w.maker)).toEqual([B]);
    // A token newly open for B has never been read: B comes first while A is fully read.
    await open(B, T4, 10n);
    expect((await walletsToRead(db, 'base', 2)).map((w) => w.maker)).toEqual([B, A]);
  });

  it('sums per token what each maker can pay out: its virtual balances capped by wallet and allowance', async () => {
    const sums = await pullableBalances(db, ['base']);
    const byToken = Object.fromEntries(sums.map((s) => [s.token, s.amount]));
    // T1: A min(1,000, 500, 2,000) = 500, B min(300, 1,000, 0) = 0. T2: A min(1,000, 5,000, 5,000).
    // T4: B's wallet not read for it yet, so it counts nothing.
    expect(byToken).toEqual({ [T1]: '500', [T2]: '1000' });
  });

  it("keeps a strategy's state, and its list entry's, with its balances and its maker's last read", async () => {
    const C = '0x00000000000000000000000000000000000000c3';
    const hash = `0x${'c3'.repeat(32)}`;
    await shipUsdcUsdt(hash, C, 100n);
    const stateOf = async () =>
      (
        await db.query<{ state: string; listed: string }>(
          `SELECT state, list_json::json->>'state' AS listed FROM strategies WHERE strategy_hash = $1`,
          [hash],
        )
      ).rows[0];
    // Never read: what it holds is all that is known.
    expect(await stateOf()).toEqual({ state: 'active', listed: 'active' });
    // Its maker holds none of the USDC it owes, and it holds no USDT: nothing to pay out.
    await recordWalletReads(db, 'base', [read(C, T1, 0n, 100n), read(C, T2, 1_000n, 1_000n)], new Date());
    expect(await stateOf()).toEqual({ state: 'inactive', listed: 'inactive' });
    // A swap brings it USDT, which the wallet covers: active again without a new read.
    await db.query(`UPDATE strategies SET balance_b = 50 WHERE strategy_hash = $1`, [hash]);
    expect(await stateOf()).toEqual({ state: 'active', listed: 'active' });
    // Docked: inactive whatever the wallet holds.
    await db.query(
      `UPDATE strategies SET status = 'docked', docked_block = 2, docked_at = now() WHERE strategy_hash = $1`,
      [hash],
    );
    expect(await stateOf()).toEqual({ state: 'inactive', listed: 'inactive' });
  });

  it('waits for a chunk in flight on the chain, and sets the state from the balances it committed', async () => {
    const D = '0x00000000000000000000000000000000000000d4';
    const hash = `0x${'d4'.repeat(32)}`;
    await shipUsdcUsdt(hash, D, 0n);
    await recordWalletReads(db, 'base', [read(D, T1, 0n, 1_000n), read(D, T2, 0n, 1_000n)], new Date());
    const stateOf = async () =>
      (await db.query<{ state: string }>('SELECT state FROM strategies WHERE strategy_hash = $1', [hash]))
        .rows[0]!.state;
    expect(await stateOf()).toBe('inactive');

    // A chunk in flight, as indexer/write.ts writes one: the state lock first, then a push of 500 USDC,
    // whose trigger still sees the wallet without USDC.
    const chunk = await db.connect();
    try {
      await chunk.query('BEGIN');
      await lockChainStates(chunk, 'base');
      await chunk.query('UPDATE strategies SET balance_a = 500 WHERE strategy_hash = $1', [hash]);
      // Meanwhile the wallet reader finds 1,000 USDC in the wallet.
      const reading = recordWalletReads(db, 'base', [read(D, T1, 1_000n, 1_000n)], new Date());
      const waiting = async () => {
        for (;;) {
          const { rows } = await db.query(
            `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%pg_advisory_xact_lock%'`,
          );
          if (rows.length > 0) return;
          await new Promise((r) => setImmediate(r));
        }
      };
      // The reader either waits for the chunk, or (without the lock) ends first from the rows as they were.
      await Promise.race([reading, waiting()]);
      await chunk.query('COMMIT');
      await reading;
    } finally {
      chunk.release();
    }
    // 500 USDC held, 1,000 in the wallet and allowed: it can pay out.
    expect(await stateOf()).toBe('active');
  });
});
