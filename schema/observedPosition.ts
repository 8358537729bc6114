/**
 * The fields a position observed by the service has wherever it is shown: PositionStatus (GET
 * /v1/positions/{id}, schema/position.ts) and ListedPosition (the list and export, schema/positionList.ts).
 */
import type { ObservedPosition } from '../domain/positions.js';
import { builder } from './builder.js';
import { PositionState } from './enums.js';
import { as } from './valueFormats.js';

export const StatusToken = builder.objectRef<ObservedPosition['tokenA']>('PositionStatusToken').implement({
  description: 'A token of a tracked position with the amount it was prepared with.',
  fields: (t) => ({
    symbol: t.exposeString('symbol', {
      nullable: true,
      description: 'Token symbol; null when the chain does not list the token.',
    }),
    address: t.exposeString('address', {
      description: 'Token contract address, checksummed.',
      extensions: as('address'),
    }),
    amount: t.exposeString('amount', {
      description: 'Prepared deposit, integer string in base units.',
      extensions: as('baseUnits'),
    }),
    decimals: t.exposeInt('decimals', {
      nullable: true,
      description: 'Token decimals; null when the chain does not list the token.',
      extensions: as('count'),
    }),
  }),
});

/** Descriptions of the observed fields, shared by PositionStatus and ListedPosition. */
const OBSERVED = {
  positionId: 'The position id: the strategy hash of its order.',
  strategyHash: "The strategy hash of the position's order, as Aqua registers it.",
  status: 'Where the position stands; a value may be added later: handle values you do not know.',
  chain: 'Chain key.',
  chainId: 'EVM chain id.',
  wallet: 'The maker wallet, checksummed.',
  tokenA: 'The token with the lower address.',
  tokenB: 'The token with the higher address.',
  makerFeeBps: 'The maker fee on the 1e7 scale (30000 = 0.3%); null when not recorded.',
  protocolFeeBps: 'The protocol fee on the 1e7 scale (5000 = 0.05%).',
  observedOnChain: 'True once the indexer has seen the strategy shipped on chain.',
  volumeUsd: 'Settled swap volume through the position, USD; null until it is observed on chain.',
  preparedAt: 'When the service prepared the transactions.',
  firstSeenOnChainAt: 'When the service first saw the strategy shipped; null until then.',
  firstSeenFilledAt: 'When the service first saw volume on the position; null until then.',
  firstSeenDockedAt: 'When the service first saw the position docked; null unless docked.',
  replaces:
    'The position this one replaces: a rebalance of that position (POST /v1/positions/{positionId}/rebalance) prepared this one, its dock first in the same bundle; null otherwise.',
} as const;

/**
 * The interface PositionStatus and ListedPosition implement: one set of fields, one fragment
 * (rest/operations/ObservedPositionFields.graphql) for the REST reads of both.
 */
export const ObservedPositionRef = builder.interfaceRef<ObservedPosition>('ObservedPosition').implement({
  description: 'What the service has observed of a position it prepared, wherever a position is shown.',
  fields: (t) => ({
    positionId: t.string({
      resolve: (p) => p.positionId,
      description: OBSERVED.positionId,
      extensions: as('hash32'),
    }),
    strategyHash: t.string({
      resolve: (p) => p.strategyHash,
      description: OBSERVED.strategyHash,
      extensions: as('hash32'),
    }),
    status: t.field({ type: PositionState, resolve: (p) => p.status, description: OBSERVED.status }),
    chain: t.string({ resolve: (p) => p.chain, description: OBSERVED.chain }),
    chainId: t.int({ resolve: (p) => p.chainId, description: OBSERVED.chainId }),
    wallet: t.string({ resolve: (p) => p.wallet, description: OBSERVED.wallet, extensions: as('address') }),
    tokenA: t.field({ type: StatusToken, resolve: (p) => p.tokenA, description: OBSERVED.tokenA }),
    tokenB: t.field({ type: StatusToken, resolve: (p) => p.tokenB, description: OBSERVED.tokenB }),
    makerFeeBps: t.int({
      nullable: true,
      resolve: (p) => p.makerFeeBps,
      description: OBSERVED.makerFeeBps,
      extensions: as('count'),
    }),
    protocolFeeBps: t.int({
      resolve: (p) => p.protocolFeeBps,
      description: OBSERVED.protocolFeeBps,
      extensions: as('count'),
    }),
    observedOnChain: t.boolean({ resolve: (p) => p.observedOnChain, description: OBSERVED.observedOnChain }),
    volumeUsd: t.float({ nullable: true, resolve: (p) => p.volumeUsd, description: OBSERVED.volumeUsd }),
    preparedAt: t.field({ type: 'DateTime', resolve: (p) => p.preparedAt, description: OBSERVED.preparedAt }),
    firstSeenOnChainAt: t.field({
      type: 'DateTime',
      nullable: true,
      resolve: (p) => p.firstSeenOnChainAt,
      description: OBSERVED.firstSeenOnChainAt,
    }),
    firstSeenFilledAt: t.field({
      type: 'DateTime',
      nullable: true,
      resolve: (p) => p.firstSeenFilledAt,
      description: OBSERVED.firstSeenFilledAt,
    }),
    firstSeenDockedAt: t.field({
      type: 'DateTime',
      nullable: true,
      resolve: (p) => p.firstSeenDockedAt,
      description: OBSERVED.firstSeenDockedAt,
    }),
    replaces: t.string({
      nullable: true,
      resolve: (p) => p.replaces,
      description: OBSERVED.replaces,
      extensions: as('hash32'),
    }),
  }),
});
