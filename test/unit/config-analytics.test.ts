import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.js';

const INTERNAL = 'internal-token-0123456789';

describe('ANALYTICS_TOKEN and ANALYTICS_STATEMENT_TIMEOUT_MS', () => {
  it('are optional: no analytics token, a 5 s statement timeout', () => {
    const config = loadConfig({ INTERNAL_TOKEN: INTERNAL });
    expect(config.analyticsToken).toBeUndefined();
    expect(config.analyticsStatementTimeoutMs).toBe(5000);
  });

  it('read when set', () => {
    const config = loadConfig({
      INTERNAL_TOKEN: INTERNAL,
      ANALYTICS_TOKEN: 'analytics-token-0123456789',
      ANALYTICS_STATEMENT_TIMEOUT_MS: '1500',
    });
    expect(config.analyticsToken).toBe('analytics-token-0123456789');
    expect(config.analyticsStatementTimeoutMs).toBe(1500);
  });

  it('refuse a short analytics token, one equal to the internal token, and a timeout out of range', () => {
    expect(() => loadConfig({ INTERNAL_TOKEN: INTERNAL, ANALYTICS_TOKEN: 'short' })).toThrow(
      /ANALYTICS_TOKEN/,
    );
    expect(() => loadConfig({ INTERNAL_TOKEN: INTERNAL, ANALYTICS_TOKEN: INTERNAL })).toThrow(
      /ANALYTICS_TOKEN: must differ from INTERNAL_TOKEN/,
    );
    expect(() => loadConfig({ ANALYTICS_STATEMENT_TIMEOUT_MS: '10' })).toThrow(
      /ANALYTICS_STATEMENT_TIMEOUT_MS/,
    );
  });
});
