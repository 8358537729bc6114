/**
 * One seeded devnet per test run. Deploying and seeding the three chains is most of what a devnet suite
 * waited for; the first suite that asks builds the seeded state once (a devnet started and stopped, its
 * state files and manifest kept in the run's directory, test/setup/devnet.ts), and every suite then
 * starts its own anvils from a copy of it: devnet/persist.ts restores a chain whose state and manifest
 * entry exist instead of deploying again. Each suite still has chains of its own (its own ports, its
 * own copy of the state), so what one suite sends never reaches another.
 *
 * Each suite's copy is its own, so no suite sees what another sent. Those that deploy and seed for
 * themselves do so because the first deployment is what they test:
 * - test/e2e/default-mode.test.ts and test/e2e/recovery.test.ts: `npm start` on an empty DATA_DIR seeds
 *   its chains, and a restart restores them (a snapshot would make every start a restore);
 * - test/chain/devnet*.test.ts: the devnet's start, seeding, lifecycle and state files themselves;
 * - test/chain/reorg.test.ts, replacedChain.test.ts, logRange.test.ts, revertEncodings.test.ts and
 *   contracts.test.ts: one anvil of their own, seeded or deployed by the test, then rewound, replaced or
 *   put behind a proxy (a single chain, not the three of the devnet);
 * - test/e2e/rpc-failover.test.ts: one chain behind two URLs of its own, the first a fault-injecting
 *   proxy (a single chain, seeded by the test);
 * - test/e2e/faults.test.ts: chains it freezes, kills and starts again on the same port, re-seeded so the
 *   contracts keep their addresses: the re-seed after the restart is what it tests, so it seeds the first
 *   start the same way;
 * - test/chain/curves.test.ts: one anvil with the router alone, no Aqua strategies or makers (the opcode
 *   table against independent formulas).
 */
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { inject } from 'vitest';
import { type Devnet, type StartDevnetOptions, startDevnet } from '../../devnet/devnet.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's directory for its devnet snapshot (made by test/setup/devnet.ts, removed at the end). */
    devnetSnapshotDir: string;
  }
}

/** Where the snapshot lives once built: `<run dir>/seeded/devnet/` (the layout of a DATA_DIR). */
function snapshotDataDir(): string {
  return path.join(inject('devnetSnapshotDir'), 'seeded');
}

/**
 * Builds the snapshot on first use: a devnet seeded on `basePort` (the asking suite's own ports),
 * stopped so its state is saved, then moved into place in one rename.
 */
async function ensureSnapshot(basePort: number): Promise<string> {
  const ready = snapshotDataDir();
  if (existsSync(path.join(ready, 'devnet', 'manifest.json'))) return ready;
  const runDir = inject('devnetSnapshotDir');
  await mkdir(runDir, { recursive: true });
  const building = await mkdtemp(path.join(runDir, 'building-'));
  // No activity: the snapshot is the seeded state itself, the same for every suite.
  const devnet = await startDevnet({ basePort, dataDir: building, activityMs: 0 });
  await devnet.stop();
  try {
    await rename(building, ready);
  } catch (error) {
    // Another process finished first: its snapshot serves.
    await rm(building, { recursive: true, force: true });
    if (!existsSync(path.join(ready, 'devnet', 'manifest.json'))) throw error;
  }
  return ready;
}

/** Puts the seeded devnet's state and manifest into `dataDir` (for a service started on DATA_DIR). */
export async function seedDataDir(dataDir: string, basePort: number): Promise<void> {
  const snapshot = await ensureSnapshot(basePort);
  await cp(path.join(snapshot, 'devnet'), path.join(dataDir, 'devnet'), { recursive: true });
}

/** `startDevnet` from the run's seeded snapshot: the same chains, contracts and strategies, in seconds. */
export async function startSeededDevnet(options: StartDevnetOptions): Promise<Devnet> {
  await seedDataDir(options.dataDir, options.basePort);
  return startDevnet(options);
}
