/**
 * Prints the ten slowest test files at the end of every run (failed or not), with their tests' count,
 * so where the suite's time goes shows in every CI log. The per-test durations of the same run are in
 * test-results/vitest.json (vitest's JSON reporter, beside the default one).
 */
import type { Reporter, TestModule } from 'vitest/node';

const SHOWN = 10;

export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const files = modules.map((m) => {
      const d = m.diagnostic();
      return {
        file: m.relativeModuleId,
        // Import and collection included: a suite's beforeAll (a devnet, a service) counts in `duration`.
        seconds: (d.duration + d.collectDuration + d.setupDuration + d.prepareDuration) / 1000,
        tests: [...m.children.allTests()].length,
        state: m.state(),
      };
    });
    if (files.length === 0) return;
    const total = files.reduce((sum, f) => sum + f.seconds, 0);
    const slowest = files.sort((a, b) => b.seconds - a.seconds).slice(0, SHOWN);
    const lines = slowest.map(
      (f) =>
        `  ${f.seconds.toFixed(1).padStart(7)} s  ${String(f.tests).padStart(3)} tests  ${f.file}${f.state === 'failed' ? '  (failed)' : ''}`,
    );
    process.stdout.write(
      `\nSlowest ${slowest.length} of ${files.length} test files (${total.toFixed(0)} s in all files):\n${lines.join('\n')}\n` +
        `Random seed of this run: ${process.env.TEST_RUN_SEED} (seeded tests name theirs; replay with TEST_SEED=<seed>)\n`,
    );
  }
}
