import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '../../bench/processes.js';

/**
 * The benches measure the service with SERVER_NODE_FLAGS (bench/processes.ts); the ways it is started for
 * real must give node the same flags, or the figures describe another runtime.
 */
describe('the node flags of the service', () => {
  it('are those of npm start', () => {
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as {
      scripts: Record<string, string>;
    };
    const start = scripts.start!.split(/\s+/);
    expect(start.slice(start.indexOf('node') + 1, start.indexOf('--import'))).toEqual(SERVER_NODE_FLAGS);
  });

  it("are those of the Dockerfile's command", () => {
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync('Dockerfile', 'utf8'))?.[1];
    const argv = JSON.parse(cmd ?? '[]') as string[];
    expect(argv.slice(1, argv.indexOf('--import'))).toEqual(SERVER_NODE_FLAGS);
  });
});
