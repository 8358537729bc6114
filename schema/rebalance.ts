import { rebalancePosition } from '../resolvers/positions/index.js';
import { builder } from './builder.js';
import { PreparedPosition, PreparePositionInput } from './preparedPosition.js';

builder.mutationField('rebalancePosition', (t) =>
  t.field({
    type: PreparedPosition,
    description:
      'Moves a shipped position of the calling API key to a new intent in one bundle (POST /v1/positions/{positionId}/rebalance): ' +
      'the dock of the old strategy, the approvals the new one needs once the old one holds nothing, and the ship of the new one. ' +
      'The intent is that of preparePosition, on the same chain and wallet. Uses the Idempotency-Key of the context when given.',
    args: {
      positionId: t.arg.string({
        required: true,
        description: 'The position to replace (its strategyHash).',
      }),
      input: t.arg({ type: PreparePositionInput, required: true, description: 'The new intent.' }),
    },
    resolve: (_root, { positionId, input }, ctx) =>
      rebalancePosition(ctx, positionId, {
        ...input,
        metadata: (input.metadata ?? null) as Record<string, string> | null,
      }),
  }),
);
