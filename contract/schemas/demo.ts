import { z } from 'zod';
import {
  DemoBalancesDocument,
  PilotDocument,
  PilotTokenAmountFieldsFragmentDoc,
} from '../../rest/generated/graphql.js';
import { fragmentSchema, operationSchema } from '../openapi/fromSelection.js';
import { component, meta } from './common.js';

/**
 * Bodies of the demo endpoints /api/pilot and /api/balances (rest/operations/Pilot.graphql and
 * DemoBalances.graphql). SPEC §2.8 keeps them open: a client must accept members it does not know.
 */

const open = (object: z.ZodObject) => z.looseObject(object.shape).meta(object.meta() ?? {});

const tokenAmount = component('DemoTokenAmount', fragmentSchema(PilotTokenAmountFieldsFragmentDoc));
const fragments = { PilotTokenAmountFields: tokenAmount, DemoTokenAmountFields: tokenAmount };

/** `cached` goes to `meta`. */
export const pilot = component(
  'Pilot',
  open(operationSchema(PilotDocument, ['pilot'], { omit: ['cached'], fragments })),
);

export const balances = component(
  'DemoBalances',
  open(operationSchema(DemoBalancesDocument, ['demoBalances'], { fragments })),
);

export const pilotBody = component('PilotResponse', z.looseObject({ data: pilot, meta }));
export const balancesBody = component('BalancesResponse', z.looseObject({ data: balances, meta }));
