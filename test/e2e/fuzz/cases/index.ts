/** Every endpoint's generator, built from what the setup learnt of the running service. */
import type fc from 'fast-check';
import type { Endpoint } from '../config.js';
import type { FuzzContext } from '../context.js';
import type { Case } from '../request.js';
import { graphqlCase } from './graphql.js';
import { positionCase } from './positions.js';
import { prepareCase } from './prepare.js';
import { readCases } from './reads.js';
import { unknownCase } from './unknown.js';

export function generators(ctx: FuzzContext): Record<Endpoint, fc.Arbitrary<Case>> {
  return {
    ...readCases(ctx),
    prepare: prepareCase(ctx),
    position: positionCase(ctx),
    graphql: graphqlCase(ctx),
    unknown: unknownCase(),
  };
}
