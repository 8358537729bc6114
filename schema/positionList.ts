import type { ListedPosition, PositionPage as PositionPageShape } from '../resolvers/positions/list.js';
import { listPositions } from '../resolvers/positions/list.js';
import { builder } from './builder.js';
import { StatusToken } from './position.js';

const ListedPositionRef = builder.objectRef<ListedPosition>('ListedPosition').implement({
  description:
    'A position of the calling key as the list shows it: the observed fields of PositionStatus (no live health) with its metadata.',
  fields: (t) => ({
    positionId: t.exposeString('positionId'),
    strategyHash: t.exposeString('strategyHash'),
    status: t.exposeString('status', { description: '`prepared`, `shipped`, `filled` or `docked`.' }),
    chain: t.exposeString('chain'),
    chainId: t.exposeInt('chainId'),
    wallet: t.exposeString('wallet'),
    tokenA: t.field({ type: StatusToken, resolve: (p) => p.tokenA }),
    tokenB: t.field({ type: StatusToken, resolve: (p) => p.tokenB }),
    makerFeeBps: t.exposeInt('makerFeeBps', { nullable: true }),
    protocolFeeBps: t.exposeInt('protocolFeeBps'),
    observedOnChain: t.exposeBoolean('observedOnChain'),
    volumeUsd: t.exposeFloat('volumeUsd', { nullable: true }),
    preparedAt: t.field({ type: 'DateTime', resolve: (p) => p.preparedAt }),
    firstSeenOnChainAt: t.field({ type: 'DateTime', nullable: true, resolve: (p) => p.firstSeenOnChainAt }),
    firstSeenFilledAt: t.field({ type: 'DateTime', nullable: true, resolve: (p) => p.firstSeenFilledAt }),
    firstSeenDockedAt: t.field({ type: 'DateTime', nullable: true, resolve: (p) => p.firstSeenDockedAt }),
    metadata: t.field({ type: 'JSON', nullable: true, resolve: (p) => p.metadata }),
  }),
});

const PositionPage = builder.objectRef<PositionPageShape>('PositionPage').implement({
  description: 'One page of the calling key’s positions, newest first.',
  fields: (t) => ({
    positions: t.field({ type: [ListedPositionRef], resolve: (p) => p.positions }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'Pass as `cursor` for the next page; null on the last page.',
    }),
  }),
});

builder.queryField('positions', (t) =>
  t.field({
    type: PositionPage,
    description: 'The positions prepared by the calling API key, newest first (GET /v1/positions).',
    args: {
      status: t.arg.string({ required: false }),
      chain: t.arg.string({ required: false }),
      wallet: t.arg.string({ required: false }),
      cursor: t.arg.string({ required: false }),
      limit: t.arg.int({ required: false }),
    },
    resolve: (_root, args, ctx) => listPositions(ctx, args),
  }),
);
