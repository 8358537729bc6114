/**
 * The parsers of the settings whose text has a shape of its own (a list of durations, a key, a list of
 * prices): each names its variable in the error that stops the start.
 */

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `5s,30s,2m,1h` → milliseconds; every delay positive, at most 30 of them. */
export function parseRetrySchedule(text: string): number[] {
  const delays = text.split(',').map((part) => {
    const match = /^\s*(\d+(?:\.\d+)?)(ms|s|m|h|d)\s*$/.exec(part);
    const value = match ? Number(match[1]) * DURATION_UNITS[match[2]!]! : Number.NaN;
    if (!Number.isFinite(value) || value <= 0) {
      throw new Error(
        `invalid configuration: WEBHOOK_RETRY_SCHEDULE: "${part}" is not a duration like 30s, 2m or 1h`,
      );
    }
    return Math.round(value);
  });
  if (delays.length > 30) throw new Error('invalid configuration: WEBHOOK_RETRY_SCHEDULE: at most 30 delays');
  return delays;
}

export function parseSecretsKey(text: string | undefined): Buffer | undefined {
  if (text === undefined || text === '') return undefined;
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) {
    throw new Error(
      'invalid configuration: WEBHOOK_SECRETS_KEY: must be 32 bytes (64 hex characters or base64)',
    );
  }
  return key;
}

export function parsePrices(text: string): Record<string, number> {
  const prices: Record<string, number> = {};
  if (text.trim() === '') return prices;
  for (const part of text.split(',')) {
    const [symbol, price] = part.split('=').map((s) => s.trim());
    const value = Number(price);
    if (!symbol || !Number.isFinite(value) || value < 0) {
      throw new Error(`TOKEN_PRICES_USD: "${part}" is not SYMBOL=price`);
    }
    prices[symbol.toUpperCase()] = value;
  }
  return prices;
}
