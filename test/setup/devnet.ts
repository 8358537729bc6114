/**
 * Global setup: a directory for this run's seeded devnet snapshot (test/helpers/devnetSnapshot.ts builds
 * it when a suite first asks, so a run without devnet suites pays nothing), removed when the run ends.
 * Every project of vitest.config.ts runs its global setup; they share one directory, so the devnet is
 * seeded once per run whichever project asks first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

const shared = globalThis as { devnetSnapshot?: { dir: string; users: number } };

export default function setup(project: TestProject): () => void {
  shared.devnetSnapshot ??= { dir: mkdtempSync(path.join(tmpdir(), 'gateway-test-devnet-')), users: 0 };
  const snapshot = shared.devnetSnapshot;
  snapshot.users += 1;
  project.provide('devnetSnapshotDir', snapshot.dir);
  return () => {
    snapshot.users -= 1;
    if (snapshot.users === 0) rmSync(snapshot.dir, { recursive: true, force: true });
  };
}
