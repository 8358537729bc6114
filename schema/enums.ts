import { builder } from './builder.js';

/**
 * One enum casing for the graph: every value is SCREAMING_CASE (`aToB` → `A_TO_B`, `at_risk` → `AT_RISK`,
 * `position.shipped` → `POSITION_SHIPPED`), while resolvers, the store and the REST facade keep the
 * internal value (the spelling REST bodies and parameters document). The persisted operations translate
 * at the boundary (rest/enumPlan.ts) and codegen types the REST side with the internal values
 * (rest/generated/enum-values.json, written by `npm run schema:print`).
 */
export function screaming(value: string): string {
  return value
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase();
}

/** A GraphQL enum whose values are the SCREAMING_CASE names of `values` (internal value → description). */
export function enumOf<const V extends string>(name: string, description: string, values: Record<V, string>) {
  return builder.enumType(name, {
    description,
    // The declared order (the printed schema sorts values; the REST documents keep this one).
    extensions: { declared: Object.keys(values) },
    values: Object.fromEntries(
      (Object.entries(values) as [V, string][]).map(([value, about]) => [
        screaming(value),
        { value, description: about },
      ]),
    ) as Record<string, { value: V; description: string }>,
  });
}

/** The curve a strategy's program runs, as read from its decoded program. */
export const ProgramKind = enumOf('ProgramKind', "The curve a strategy's program runs.", {
  xyc: 'x·y=k (XYCSwap) over its balances.',
  concentrated: 'x·y=k concentrated in a price range (XYCConcentrateGrowLiquidity2D).',
  pegged: 'A curve flat near a peg (PeggedSwapGrowPriceRange2D).',
  other: 'Any other program.',
});

/** Where a token's USD price comes from (chain/prices.ts). */
export const PriceSourceKind = enumOf('PriceSourceKind', "Where a token's USD price comes from.", {
  override: "The operator's TOKEN_PRICES_USD, over the chains file.",
  fixed: "A fixed price the chains file states for the token (a dollar stablecoin's peg of 1).",
  feed: 'A Chainlink-style USD price feed on the chain the chains file names, read every PRICE_REFRESH_MS.',
});

/** Where a position stands, as the service observes it on chain. */
export const PositionState = enumOf(
  'PositionState',
  'Where a position stands, as the service observes it on chain.',
  {
    prepared: 'Prepared; nothing seen on chain yet.',
    shipped: 'Shipped: open in the catalogue.',
    filled: 'Open and traded: it has settled volume.',
    docked: 'Closed by its maker.',
  },
);

export const PositionHealthStatus = enumOf(
  'PositionHealthStatus',
  "Whether an open position can keep filling, read live from the wallet's allowance and balances.",
  {
    ok: 'Covered: this position and every other open one of the wallet can fill.',
    at_risk:
      "This position is covered, not all of the wallet's: others' fills use up the same allowance or balance.",
    stalled: 'A swap against this position reverts now although a quote succeeds.',
  },
);

export const WalletIssueType = enumOf(
  'WalletIssueType',
  'A shortfall of the wallet (SPEC §7 issues[] types).',
  {
    INSUFFICIENT_ALLOWANCE: "The wallet's allowance to Aqua is below what its strategies hold.",
    INSUFFICIENT_BALANCE: "The wallet's balance is below what its strategies hold.",
  },
);

export const PreflightStatus = enumOf('PreflightStatus', 'The outcome of the checks run before preparing.', {
  ready: 'Every check passed.',
  review: 'At least one check failed: read `issues` before signing.',
});

export const StepPurpose = enumOf('StepPurpose', 'What an unsigned transaction step does.', {
  approve: 'An ERC-20 approve of the spender: Aqua, or the router for a swap.',
  ship: "Aqua's ship: opens the strategy.",
  swap: "The router's swap against a strategy.",
  dock: "Aqua's dock: closes the strategy.",
});

export const WebhookEventType = enumOf('WebhookEventType', 'An event a webhook endpoint can receive.', {
  'position.shipped': 'The position was seen shipped on chain.',
  'position.filled': 'The position was seen with settled volume for the first time.',
  'position.docked': 'The position was seen docked.',
  'position.health_changed': 'The live health of the position changed (ok, at_risk, stalled).',
  'position.reverted':
    'A reorg or a replaced chain undid what was observed of the position (its ship: `prepared` again; or its dock: open again); the lifecycle events that follow are delivered anew.',
});

export const DeliveryStatus = enumOf('DeliveryStatus', 'Where the delivery of one event stands.', {
  pending: 'Not delivered yet; attempts continue.',
  succeeded: 'An attempt got a 2xx answer.',
  failed: 'Retries exhausted.',
});

export const PilotStrategyStatus = enumOf('PilotStrategyStatus', "The pilot strategy's state.", {
  active: 'Shipped and open.',
  docked: 'Closed.',
  not_shipped: 'Not shipped yet.',
});
