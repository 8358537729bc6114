import type { Db } from '../../store/db.js';

/** Everything the indexer derives, as comparable values (USD rounded: sums of floats depend on grouping). */
export async function catalogueSnapshot(t: { db: Db }) {
  const one = async (sql: string) => (await t.db.query<{ v: unknown }>(sql)).rows[0]!.v;
  return {
    strategies:
      await one(`SELECT md5(string_agg(concat_ws('|', chain_key, strategy_hash, maker, app, strategy,
      traits, program::text, token_a, token_b, symbol_a, symbol_b, decimals_a, decimals_b, pair_key, tokens::text,
      initial_a, initial_b, balance_a, balance_b, status, shipped_block, shipped_tx, shipped_at, docked_block,
      docked_at, round(volume_usd::numeric, 6), swap_count, last_swap_at, first_volume_seen_at IS NULL, docked_seen_at IS NULL), ','
      ORDER BY chain_key, strategy_hash)) AS v FROM strategies`),
    swaps:
      await one(`SELECT md5(string_agg(concat_ws('|', chain_key, tx_hash, log_index, block_number, block_time,
      strategy_hash, maker, taker, token_in, token_out, amount_in, amount_out, volume_usd), ','
      ORDER BY chain_key, tx_hash, log_index)) AS v FROM swaps`),
    balanceChanges:
      await one(`SELECT md5(string_agg(concat_ws('|', chain_key, tx_hash, log_index, block_number,
      strategy_hash, token, kind, amount, block_time), ',' ORDER BY chain_key, tx_hash, log_index)) AS v
      FROM balance_changes`),
    // The earnings buckets (migration 027), without the buckets whose events cancel out.
    strategyEarnings: await one(`SELECT md5(string_agg(concat_ws('|', chain_key, strategy_hash, token, hour,
      maker_fees, protocol_fees, delta, trim_scale(delta_seconds)), ',' ORDER BY chain_key, strategy_hash, token, hour)) AS v
      FROM strategy_earnings_hourly WHERE (maker_fees, protocol_fees, delta, delta_seconds) <> (0, 0, 0, 0)`),
    makerEarnings: await one(`SELECT md5(string_agg(concat_ws('|', chain_key, maker, token, hour,
      maker_fees, protocol_fees, delta, trim_scale(delta_seconds)), ',' ORDER BY chain_key, maker, token, hour)) AS v
      FROM maker_earnings_hourly WHERE (maker_fees, protocol_fees, delta, delta_seconds) <> (0, 0, 0, 0)`),
    volumeHourly: await one(`SELECT md5(string_agg(concat_ws('|', chain_key, pair_key, hour,
      round(volume_usd::numeric, 6), swap_count, last_swap_at, round(maker_fees_usd::numeric, 6),
      round(protocol_fees_usd::numeric, 6)), ',' ORDER BY chain_key, pair_key, hour)) AS v
      FROM volume_hourly`),
    // The analytics roll-ups (migration 014): per strategy and hour, per maker and hour, per maker.
    strategyHourly: await one(`SELECT md5(string_agg(concat_ws('|', chain_key, strategy_hash, hour,
      round(volume_usd::numeric, 6), swap_count, round(maker_fees_usd::numeric, 6),
      round(protocol_fees_usd::numeric, 6)), ',' ORDER BY chain_key, strategy_hash, hour)) AS v
      FROM strategy_hourly`),
    makerHourly: await one(`SELECT md5(string_agg(concat_ws('|', chain_key, maker, hour,
      round(volume_usd::numeric, 6), swap_count, round(maker_fees_usd::numeric, 6),
      round(protocol_fees_usd::numeric, 6)), ',' ORDER BY chain_key, maker, hour)) AS v FROM maker_hourly`),
    makerActivity: await one(`SELECT md5(string_agg(concat_ws('|', chain_key, maker, docked_strategies,
      round(volume_usd::numeric, 6), swap_count, round(maker_fees_usd::numeric, 6),
      round(protocol_fees_usd::numeric, 6), last_swap_at), ',' ORDER BY chain_key, maker)) AS v
      FROM maker_activity WHERE swap_count <> 0 OR docked_strategies <> 0`),
    // The live stream's events (GET /api/events) by what they are about, whatever their ids; without a
    // rewind's own announcement (`chain.rewound`), which a fresh index has no cause to make.
    events: await one(`SELECT md5(string_agg(concat_ws('|', chain_key, kind, source, data::text), ','
      ORDER BY chain_key, kind, source)) AS v FROM catalogue_events WHERE kind <> 'chain.rewound'`),
    pairCounts: (
      await t.db.query(
        'SELECT * FROM catalogue_pair_counts WHERE strategies <> 0 ORDER BY chain_key, pair_key, status',
      )
    ).rows,
    makers: (
      await t.db.query('SELECT * FROM catalogue_makers WHERE open_strategies <> 0 ORDER BY chain_key, maker')
    ).rows,
    counts: (
      await t.db.query(`SELECT (SELECT count(*) FROM strategies)::int AS strategies,
        (SELECT count(*) FROM swaps)::int AS swaps, (SELECT count(*) FROM balance_changes)::int AS balance_changes,
        (SELECT coalesce(sum(swap_count), 0) FROM volume_hourly)::int AS hourly_swaps,
        (SELECT round(coalesce(sum(volume_usd), 0)::numeric, 6)::text FROM swaps) AS swap_volume,
        (SELECT round(coalesce(sum(volume_usd), 0)::numeric, 6)::text FROM strategies) AS strategy_volume`)
    ).rows[0],
    checkpoints: (
      await t.db.query(
        'SELECT chain_key, last_block::int, last_block_hash FROM indexer_checkpoints ORDER BY 1',
      )
    ).rows,
  };
}
