/**
 * What bench/generate.ts turns off for a bulk load and on again after it: the counting triggers of
 * `strategies` and the tables' indexes (dropped, then rebuilt from presorted rows).
 */
import type pg from 'pg';
import { MAKER_STRATEGY_CHANGES_CHANNEL } from '../store/walletStrategies.js';

/**
 * The statement-level triggers of `strategies` that read its transition tables: the counts of migration
 * 004, the balances and makers of migration 014, the makers' change notices of migration 017.
 */
const COUNTING_TRIGGERS = ['insert', 'update', 'delete', 'truncate'].flatMap((op) => [
  `strategies_counts_${op}`,
  `strategies_analytics_${op}`,
  `strategies_maker_${op}`,
]);

export async function setCountingTriggers(client: pg.PoolClient, action: 'ENABLE' | 'DISABLE') {
  for (const trigger of COUNTING_TRIGGERS)
    await client.query(`ALTER TABLE strategies ${action} TRIGGER ${trigger}`);
  // What the makers' notices did not say while they were off: every process forgets every maker.
  if (action === 'ENABLE') await client.query("SELECT pg_notify($1, '')", [MAKER_STRATEGY_CHANGES_CHANNEL]);
}

export interface IndexDef {
  table: string;
  name: string;
  /** Recreates it: a CREATE INDEX statement or an ADD CONSTRAINT … PRIMARY KEY. */
  create: string;
  drop: string;
}

/**
 * The indexes of the tables as the migrations made them, read from the catalog. DDL takes no bind
 * parameters: the names and definitions come from Postgres itself, quoted by it.
 */
export async function indexesOf(client: pg.PoolClient, tables: string[]): Promise<IndexDef[]> {
  const { rows } = await client.query<{
    table: string;
    name: string;
    def: string;
    constraint: string | null;
  }>(
    `SELECT c.relname AS table, i.relname AS name, pg_get_indexdef(x.indexrelid) AS def,
       (SELECT pg_get_constraintdef(k.oid) FROM pg_constraint k WHERE k.conindid = x.indexrelid AND k.contype = 'p')
         AS constraint
     FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
     WHERE c.relname = ANY($1) AND c.relnamespace = 'public'::regnamespace
     ORDER BY c.relname, i.relname`,
    [tables],
  );
  return rows.map((r) => {
    const table = `public.${JSON.stringify(r.table)}`;
    const name = JSON.stringify(r.name);
    return r.constraint
      ? {
          table: r.table,
          name: r.name,
          create: `ALTER TABLE ${table} ADD CONSTRAINT ${name} ${r.constraint}`,
          drop: `ALTER TABLE ${table} DROP CONSTRAINT ${name}`,
        }
      : { table: r.table, name: r.name, create: r.def, drop: `DROP INDEX public.${name}` };
  });
}
