/** Badge metrics from the roll-up, and the short number formats they are shown in. */
import { ApiError } from '../../lib/errors.js';
import type { GraphQLContext } from '../context.js';
import { EMPTY_TOTALS } from './stats.js';

export const BADGE_METRICS = [
  'volume30',
  'volume7',
  'volume1',
  'strategies',
  'makers',
  'pairs',
  'chains',
] as const;
export type BadgeMetric = (typeof BADGE_METRICS)[number];

export const BADGE_LABELS: Record<BadgeMetric, string> = {
  volume30: 'volume 30d',
  volume7: 'volume 7d',
  volume1: 'volume 24h',
  strategies: 'strategies',
  makers: 'makers',
  pairs: 'pairs',
  chains: 'chains',
};

export interface BadgeView {
  metric: BadgeMetric;
  label: string;
  value: number;
  message: string;
  color: string;
  rollupUpdatedAt: Date;
}

/** The metric's value from the roll-up, formatted; UPSTREAM_UNAVAILABLE before the first roll-up. */
export async function badge(ctx: GraphQLContext, metric: BadgeMetric): Promise<BadgeView> {
  if (!BADGE_METRICS.includes(metric)) {
    throw ApiError.invalid('metric', `metric must be one of ${BADGE_METRICS.join(', ')}.`);
  }
  const rollup = await ctx.loaders.rollup.load('catalogue');
  if (!rollup) throw new ApiError('UPSTREAM_UNAVAILABLE', 'The catalogue roll-up is not ready yet.');
  const totals = { ...EMPTY_TOTALS, ...rollup.payload.totals };
  const value = {
    volume30: totals.volume_30d_usd,
    volume7: totals.volume_7d_usd,
    volume1: totals.volume_1d_usd,
    strategies: totals.strategies,
    makers: totals.makers,
    pairs: totals.pairs,
    chains: totals.chains,
  }[metric];
  const money = metric.startsWith('volume');
  return {
    metric,
    label: BADGE_LABELS[metric],
    value,
    message: money ? formatUsd(value) : formatCount(value),
    color: value > 0 ? (money ? 'brightgreen' : 'blue') : 'lightgrey',
    rollupUpdatedAt: rollup.refreshedAt,
  };
}

const UNITS = [
  { size: 1, suffix: '' },
  { size: 1e3, suffix: 'K' },
  { size: 1e6, suffix: 'M' },
  { size: 1e9, suffix: 'B' },
  { size: 1e12, suffix: 'T' },
] as const;

/**
 * Short magnitude text: one decimal under 10 of a unit, none from 10 on ("1.2M", "950K", "12"); a
 * value that rounds up to 1000 of a unit moves to the next one ("999,999" → "1M", never "1000K").
 */
export function formatCompact(value: number): string {
  if (!Number.isFinite(value)) return '0';
  const sign = value < 0 ? '-' : '';
  const abs = Math.abs(value);
  let i = Math.max(
    0,
    UNITS.findLastIndex((u) => abs >= u.size),
  );
  for (;;) {
    const unit = UNITS[i]!;
    const scaled = abs / unit.size;
    const rounded = scaled < 9.95 ? Math.round(scaled * 10) / 10 : Math.round(scaled);
    if (rounded >= 1000 && i < UNITS.length - 1) {
      i++;
      continue;
    }
    return `${sign}${rounded}${unit.suffix}`;
  }
}

export function formatUsd(value: number): string {
  const text = formatCompact(value);
  return text.startsWith('-') ? `-$${text.slice(1)}` : `$${text}`;
}

/** Counts: exact under 10,000 ("9,876" reads better than "9.9K"), compact above. */
export function formatCount(value: number): string {
  return Math.abs(value) < 10_000 ? Math.round(value).toLocaleString('en-US') : formatCompact(value);
}
