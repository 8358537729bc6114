/**
 * Global setup: a directory for this run's seeded devnet snapshot (test/helpers/devnetSnapshot.ts builds
 * it when a suite first asks, so a run without devnet suites pays nothing), removed when the run ends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(path.join(tmpdir(), 'gateway-test-devnet-'));
  project.provide('devnetSnapshotDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
