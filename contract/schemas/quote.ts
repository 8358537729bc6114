import { z } from 'zod';
import {
  QuoteDocument,
  QuoteFeeFieldsFragmentDoc,
  QuoteTokenFieldsFragmentDoc,
} from '../../rest/generated/graphql.js';
import { fragmentSchema, operationSchema } from '../openapi/fromSelection.js';
import { component, meta } from './common.js';

/** The body of GET /api/quote (an open body of SPEC §2.8): an indicative, simulated exactIn quote. */

/** rest/operations/QuoteTokenFields.graphql (inline where it is used, as it always was). */
export const quoteToken = fragmentSchema(QuoteTokenFieldsFragmentDoc);

/** rest/operations/QuoteFeeFields.graphql. */
export const quoteFee = component('QuoteFee', fragmentSchema(QuoteFeeFieldsFragmentDoc));

/** A decimal uint64 string in the graph, a number on REST (rest/routes/quote.ts converts it). */
export const blockNumber = z.int().min(0).meta({ description: 'The block the simulation read.' });

/**
 * rest/operations/Quote.graphql. The object stays open (additional properties allowed) as SPEC §2.8
 * says of this body; `signed` is published as the constant it always is.
 */
const selected = operationSchema(QuoteDocument, ['quote'], {
  fragments: { QuoteTokenFields: quoteToken, QuoteFeeFields: quoteFee },
  replace: {
    blockNumber,
    signed: z.literal(false).meta({ description: 'Always false: the service signs nothing.' }),
  },
});

export const quote = component(
  'Quote',
  z.looseObject(selected.shape).meta({ description: selected.description }),
);

export const quoteBody = component('QuoteResponse', z.looseObject({ data: quote, meta }));
