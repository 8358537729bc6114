/**
 * The order files are handed to the workers: the longest first. Vitest orders by the durations of the
 * previous run on this machine, and a fresh clone (CI) has none, so it kept the glob's order and the
 * longest file (the recovery suite, two minutes) started two thirds into the run, with the other
 * workers idle at the end. The files below go first, longest first (figures from test-results/vitest.json,
 * which every run writes); the rest keep vitest's order. A file missing from the list only runs later.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const LONGEST_FIRST = [
  'test/e2e/recovery.test.ts',
  'test/e2e/webhooks-crash.test.ts',
  'test/e2e/web.test.ts',
  'test/e2e/wallet.test.ts',
  'test/chain/devnetStateKill.test.ts',
  'test/e2e/fuzz.test.ts',
  'test/e2e/webhooks-health.test.ts',
  'test/integration/positions-export-memory.test.ts',
  'test/integration/graphql-limits.test.ts',
  'test/integration/embedded-restart.test.ts',
  'test/integration/limits.test.ts',
  'test/chain/logRange.test.ts',
  'test/e2e/drain.test.ts',
  'test/e2e/faults.test.ts',
  'test/integration/positions-export-fairness.test.ts',
  'test/e2e/rpc-failover.test.ts',
  'test/e2e/backfill.test.ts',
  'test/integration/keys-cli.test.ts',
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = LONGEST_FIRST.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    // Within each project only: the projects' order (group order, then name) is vitest's.
    const byProject = new Map<string, number[]>();
    sorted.forEach((spec, i) => {
      const slots = byProject.get(spec.project.name) ?? [];
      slots.push(i);
      byProject.set(spec.project.name, slots);
    });
    const out = [...sorted];
    for (const slots of byProject.values()) {
      const specs = slots.map((i) => sorted[i]!).sort((a, b) => rank(a) - rank(b));
      slots.forEach((slot, k) => {
        out[slot] = specs[k]!;
      });
    }
    return out;
  }
}
