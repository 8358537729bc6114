// How the operator page (web/app.js) writes figures: US dollars, base-unit token amounts, ages and
// shortened hashes.

const usdCompact = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  notation: 'compact',
  maximumFractionDigits: 2,
});
export const usdExact = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  maximumFractionDigits: 2,
});
export const integer = new Intl.NumberFormat('en-US');

export function usd(value) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  return Math.abs(value) >= 100_000 ? usdCompact.format(value) : usdExact.format(value);
}

/** A base-unit integer string as a decimal with `shown` fraction digits, grouped by thousands (no floats). */
export function units(amount, decimals, shown = 2) {
  if (amount === null || amount === undefined) return '—';
  if (decimals === null || decimals === undefined) return String(amount);
  let value;
  try {
    value = BigInt(amount);
  } catch {
    return String(amount);
  }
  const negative = value < 0n;
  if (negative) value = -value;
  const digits = Math.min(shown, decimals);
  const step = 10n ** BigInt(decimals - digits);
  const rounded = (value + step / 2n) / step;
  const whole = rounded / 10n ** BigInt(digits);
  const fraction = rounded % 10n ** BigInt(digits);
  const text = integer.format(whole) + (digits > 0 ? `.${fraction.toString().padStart(digits, '0')}` : '');
  return (
    (negative ? '-' : '') + (value > 0n && rounded === 0n ? `<${(1 / 10 ** digits).toFixed(digits)}` : text)
  );
}

export function ago(iso) {
  if (!iso) return '—';
  const seconds = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (!Number.isFinite(seconds)) return '—';
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86_400)} d ago`;
}

export function short(hex, head = 6, tail = 4) {
  if (typeof hex !== 'string' || hex.length <= head + tail + 1) return hex ?? '—';
  return `${hex.slice(0, head)}…${hex.slice(-tail)}`;
}
