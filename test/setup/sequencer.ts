/**
 * The order of the test files: vitest's own (the slowest first, from the last run's durations), except
 * the suites that drive a browser, which run last. Importing playwright installs async hooks that stay
 * for the life of the worker, which every file shares (isolate off): every later await became slower,
 * and a 100k-row export took 30 s instead of 9.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const BROWSER_SUITES = ['test/e2e/openapi.test.ts', 'test/e2e/web.test.ts'];

const drivesBrowser = (spec: TestSpecification) => BROWSER_SUITES.some((f) => spec.moduleId.endsWith(f));

export default class BrowserSuitesLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return [...sorted.filter((f) => !drivesBrowser(f)), ...sorted.filter(drivesBrowser)];
  }
}
