import { z } from 'zod';
import { listedPosition, positionCsv, positionListBody } from '../../contract/schemas/positionList.js';
import { nextCursorOf, REST_PAGING_NAMES } from '../../resolvers/connection.js';
import {
  eachPosition,
  POSITIONS_DEFAULT_LIMIT,
  POSITIONS_MAX_LIMIT,
  positionFilters,
  listedPosition as shapeListed,
} from '../../resolvers/positions/list.js';
import { WALLET_PATTERN } from '../../resolvers/positions/request.js';
import { PositionListDocument, type PositionState } from '../generated/graphql.js';
import { operationRoute } from '../operationRoute.js';
import { chainKey, oneOf, pageCursor, pageLimit, queryOf, variableEnum } from '../parameters.js';
import {
  CSV_COLUMNS,
  chunkWriter,
  csvHeader,
  csvLine,
  EXPORT_FORMATS,
  type ExportFormat,
  ndjsonLine,
} from '../positionExport.js';
import { queryText } from '../queryValues.js';
import { type RestRoute, type RouteContext, readBody } from '../route.js';

/**
 * GET /v1/positions and GET /v1/positions/export: the calling key's positions, listed through
 * the persisted GraphQL operation, exported as a stream (HTTP work: a keyset loop of pages written
 * with backpressure, never the whole set in memory). Both shape rows with the one status shaping.
 */

const filters = {
  status: variableEnum(PositionListDocument, 'status').optional(),
  chain: chainKey().optional(),
  wallet: queryText('wallet', 42)
    .regex(WALLET_PATTERN, 'wallet must match ^0x[a-fA-F0-9]{40}$.')
    .optional()
    .meta({ examples: ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8'] }),
};
const exportQuery = z.object({
  format: oneOf('format', EXPORT_FORMATS).meta({ examples: ['csv'] }),
  ...filters,
});
const listQuery = z.object({
  ...filters,
  limit: pageLimit(POSITIONS_MAX_LIMIT).optional(),
  cursor: pageCursor().optional(),
});

/** The filters as the list and the export echo them: null when not given. */
const filtersOf = (q: { status?: PositionState; chain?: string; wallet?: string }) => ({
  status: q.status ?? null,
  chain: q.chain ?? null,
  wallet: q.wallet ?? null,
});

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson',
};

/** Rows a query of the export reads: one page in memory at a time. */
const EXPORT_BATCH = 1000;

/** Before GET /v1/positions/{positionId}, so `export` is never read as a positionId. */
export const positionExportRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/v1/positions/export',
    bucket: 'positions',
    auth: { scope: null },
    doc: {
      operationId: 'exportPositions',
      descriptionValues: { CSV_COLUMNS: CSV_COLUMNS.map((c) => `\`${c}\``).join(', ') },
      query: exportQuery,
      response: positionCsv,
      responseTypes: { 'text/csv': positionCsv, 'application/x-ndjson': listedPosition },
      responseHeaders: {
        'Content-Disposition': {},
        'Cache-Control': {},
      },
    },
    async handle(ctx) {
      const { format, ...given } = queryOf(ctx, exportQuery);
      const gql = ctx.graphql();
      // Every refusal (400 naming the parameter, then 429 / 503 for a slot) before the first byte.
      const filters = positionFilters(gql, filtersOf(given));
      const { res, services } = ctx;
      const release = await services.exports?.take(ctx.apiKey!.keyId);
      // 'close' comes however the response ends: sent, cut, refused after the slot, or the client gone.
      if (release) res.once('close', release);
      await streamExport(ctx, gql, filters, format);
      return { body: null, streamed: true };
    },
  },
];

/** Rows shaped and serialised in one turn of the event loop (a page at once held it for milliseconds). */
const EXPORT_SLICE = 50;

async function streamExport(
  ctx: RouteContext,
  gql: ReturnType<RouteContext['graphql']>,
  filters: ReturnType<typeof positionFilters>,
  format: ExportFormat,
): Promise<void> {
  const { res, services } = ctx;
  const line = format === 'csv' ? csvLine : ndjsonLine;
  const pages = eachPosition(gql, filters, { batch: EXPORT_BATCH, db: services.exportDb ?? services.db });
  // The first page is read before the headers, so a store failure is still an error envelope.
  let next = await pages.next();
  res.statusCode = 200; // node's ServerResponse: exact paths are served without express's prototype
  res.setHeader('Content-Type', CONTENT_TYPES[format]);
  res.setHeader('Content-Disposition', `attachment; filename="positions.${format}"`);
  res.setHeader('Cache-Control', 'no-store');
  const writeChunk = chunkWriter(res, services.config.exports.idleTimeoutMs);
  try {
    if (format === 'csv' && !(await writeChunk(csvHeader()))) return;
    while (!next.done) {
      const rows = next.value;
      for (let i = 0; i < rows.length; i += EXPORT_SLICE) {
        const slice = rows.slice(i, i + EXPORT_SLICE);
        const serialise = () => slice.map((row) => line(shapeListed(gql, row))).join('');
        // In the exports' turn (a share of the loop), or at once where nothing shares it (tools).
        const text = services.exports ? await services.exports.slice(serialise) : serialise();
        if (!(await writeChunk(text))) {
          await pages.return(undefined);
          return;
        }
      }
      next = await pages.next();
    }
    res.end();
  } catch (error) {
    // Headers are sent: the only honest signal left is a body cut short.
    services.logger.error({ err: error, requestId: ctx.requestId }, 'position export failed mid-stream');
    res.destroy(error instanceof Error ? error : undefined);
  }
}

/** After POST /v1/positions: the path's first route stays the prepare one (405s count against `prepare`). */
export const positionListRoutes: RestRoute[] = [
  operationRoute({
    method: 'GET',
    path: '/v1/positions',
    bucket: 'positions',
    auth: { scope: null },
    doc: {
      operationId: 'listPositions',
      descriptionValues: { POSITIONS_MAX_LIMIT, POSITIONS_DEFAULT_LIMIT },
      query: listQuery,
      response: positionListBody,
      responseHeaders: { 'Cache-Control': {} },
    },
    operation: PositionListDocument,
    variables: (ctx) => {
      const { limit = POSITIONS_DEFAULT_LIMIT, cursor = null, ...given } = queryOf(ctx, listQuery);
      return { ...filtersOf(given), first: limit, after: cursor };
    },
    renames: REST_PAGING_NAMES,
    answer: (ctx, { positions: page }, { status, chain, wallet, first: limit }) => {
      // Each position as selected (rest/operations/PositionList.graphql).
      const positions = page.edges.map(({ node }) => node);
      return {
        body: readBody(ctx, {
          positions,
          page: { limit, nextCursor: nextCursorOf(page.pageInfo) },
          filters: { status, chain, wallet },
        }),
        headers: { 'Cache-Control': 'no-store' },
      };
    },
  }),
];
