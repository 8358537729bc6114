/**
 * The store of makers' wallets (migration 026) over a real database: which wallets a run reads first,
 * and the pullable sums per chain and token (per maker, the smaller of its open virtual balances, its
 * wallet balance and its allowance).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../store/db.js';
import { pullableBalances, recordWalletReads, walletsToRead } from '../../store/makerWallets.js';
import { migrate } from '../../store/migrate.js';
import { createTestDatabase } from '../helpers/postgres.js';

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

beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  db = createDb(database.url, 2);
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
});
