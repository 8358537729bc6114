import { z } from 'zod';
import { component, meta, pageSchema, readBody } from './common.js';
import { positionStatus } from './positions.js';

/** GET /v1/positions and GET /v1/positions/export. */
export const listedPosition = component(
  'ListedPosition',
  positionStatus
    .omit({ health: true, signer: true })
    .extend({
      metadata: z
        .record(z.string(), z.string())
        .nullable()
        .meta({ description: 'The map given at prepare time (null when none was given).' }),
    })
    .meta({
      description:
        'A position of the calling key as lists and exports show it: the observed fields of GET /v1/positions/{positionId} (no live `health`) and its metadata.',
    }),
);

export const positionListBody = component(
  'PositionListResponse',
  readBody(
    z.object({
      positions: z.array(listedPosition).meta({ description: 'Newest prepared first.' }),
      page: pageSchema('Pass as `cursor` (with the same filters) for the next page; null on the last page.'),
      filters: z.object({
        status: z.string().nullable(),
        chain: z.string().nullable(),
        wallet: z.string().nullable(),
      }),
    }),
    meta,
  ),
);

export const positionCsv = z.string().meta({
  description:
    "RFC 4180 CSV, CRLF line ends, a header row then one row per position. A cell starting with `=`, `+`, `-`, `@`, TAB or CR is prefixed with `'` (formula injection); `metadata` is a JSON text cell.",
});
