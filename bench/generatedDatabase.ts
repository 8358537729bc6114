/**
 * The database of a bench over a generated catalogue (bench:catalogue): the one named by
 * BENCH_DB_URL (a previous run's, reused as it is), else a fresh test database; migrated, and filled by
 * `generateCatalogue` when it holds no strategy. `close()` ends the pool and drops the database it
 * created, unless BENCH_KEEP_DB=1 (then it prints the BENCH_DB_URL that reuses it).
 */
import type { ChainConfig } from '../lib/config.js';
import { createDb, type Db } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { createTestDatabase } from '../test/helpers/postgres.js';
import { generateCatalogue } from './generate.js';

export interface GeneratedDatabase {
  url: string;
  db: Db;
  /** Seconds the generation took; null when the database already held a catalogue. */
  generatedSeconds: number | null;
  close(): Promise<void>;
}

export async function generatedDatabase(options: {
  strategies: number;
  swaps: number;
  chains: ChainConfig[];
  /** The generator's progress lines (none when absent). */
  log?: (line: string) => void;
}): Promise<GeneratedDatabase> {
  const created = process.env.BENCH_DB_URL ? null : await createTestDatabase();
  const url = process.env.BENCH_DB_URL ?? created!.url;
  const db = createDb(url, 4);
  const close = async () => {
    await db.end().catch(() => {});
    if (!created) return;
    if (process.env.BENCH_KEEP_DB === '1') console.log(`kept the database: BENCH_DB_URL=${url}`);
    else await created.drop();
  };
  try {
    await migrate(db);
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM strategies');
    let generatedSeconds: number | null = null;
    if (rows[0]!.n === 0) {
      const started = performance.now();
      options.log?.(
        `generating with bench/generate.ts: ${options.strategies.toLocaleString()} strategies, ${options.swaps.toLocaleString()} swaps`,
      );
      await generateCatalogue(db, {
        strategies: options.strategies,
        swaps: options.swaps,
        chains: options.chains,
        ...(options.log ? { log: (line: string) => options.log!(`  ${line}`) } : {}),
      });
      generatedSeconds = Math.round((performance.now() - started) / 1000);
      options.log?.(`generated in ${generatedSeconds} s`);
    }
    return { url, db, generatedSeconds, close };
  } catch (error) {
    await close();
    throw error;
  }
}
