import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.js';

const INTERNAL = 'internal-token-0123456789';
/** Node's longest timer delay: a longer one fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

describe('delays in milliseconds', () => {
  it.each([
    'INDEXER_POLL_MS',
    'ROLLUP_REFRESH_MS',
    'HEALTH_CHECK_MS',
    'REQUEST_TIMEOUT_MS',
    'RPC_TIMEOUT_MS',
    'RPC_QUOTE_TIMEOUT_MS',
    'RPC_LOGS_TIMEOUT_MS',
    'DEVNET_ACTIVITY_MS',
  ])('%s: refused past the longest delay a timer takes, named in the message', (name) => {
    expect(() => loadConfig({ INTERNAL_TOKEN: INTERNAL, [name]: String(MAX_TIMER_MS + 1) })).toThrow(name);
    expect(() => loadConfig({ INTERNAL_TOKEN: INTERNAL, [name]: String(MAX_TIMER_MS) })).not.toThrow();
  });

  it('DEVNET_ACTIVITY_MS: 0 is a devnet without activity; under 100 otherwise is refused', () => {
    expect(loadConfig({ INTERNAL_TOKEN: INTERNAL, DEVNET_ACTIVITY_MS: '0' }).devnetActivityMs).toBe(0);
    expect(loadConfig({ INTERNAL_TOKEN: INTERNAL }).devnetActivityMs).toBe(3000);
    expect(() => loadConfig({ INTERNAL_TOKEN: INTERNAL, DEVNET_ACTIVITY_MS: '50' })).toThrow(
      /DEVNET_ACTIVITY_MS: must be 0 \(no activity\) or 100\.\./,
    );
  });
});
