import type { ListedPosition } from '../domain/positions.js';
import { listPositions } from '../resolvers/positions/list.js';
import { builder } from './builder.js';
import { connectionOf, relayArgs, relayPaging } from './connection.js';
import { PositionState } from './enums.js';
import { ObservedPositionRef } from './observedPosition.js';

const ListedPositionRef = builder.objectRef<ListedPosition>('ListedPosition').implement({
  description:
    'A position of the calling key as the list shows it: the observed fields of PositionStatus (no live health) with its metadata.',
  interfaces: [ObservedPositionRef],
  fields: (t) => ({
    metadata: t.field({
      type: 'JSON',
      nullable: true,
      resolve: (p) => p.metadata,
      description: 'The map of strings given when the position was prepared; null when none.',
    }),
  }),
});

const PositionConnection = connectionOf('Position', ListedPositionRef, {
  one: 'position',
  many: 'positions',
});

builder.queryField('positions', (t) =>
  t.field({
    type: PositionConnection,
    description: 'The positions prepared by the calling API key, newest first (GET /v1/positions).',
    args: {
      status: t.arg({ type: PositionState, required: false, description: 'Only positions in this state.' }),
      chain: t.arg.string({ required: false, description: 'Only positions on this chain key.' }),
      wallet: t.arg.string({ required: false, description: 'Only positions of this wallet address.' }),
      ...relayArgs(t),
    },
    resolve: (_root, { first, after, ...filters }, ctx) =>
      relayPaging(() => listPositions(ctx, { ...filters, limit: first, cursor: after })),
  }),
);
