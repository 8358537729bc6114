import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import type { GraphQLArmorRejectCallback } from '@escape.tech/graphql-armor-types';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { GraphQLError, getNamedType } from 'graphql';
import { type ComplexityEstimator, getComplexity, simpleEstimator } from 'graphql-query-complexity';
import type { Plugin } from 'graphql-yoga';
import { ApiError } from '../lib/errors.js';
import type { GraphQLContext } from '../resolvers/context.js';
import { seriesRange } from '../resolvers/series.js';
import { sendError } from './envelope.js';

/**
 * Bounds of a /graphql document, checked before anything runs (the REST facade's persisted documents
 * never meet them: they run in-process through rest/execute.ts). The issue this answers: one document
 * of 210 aliases of `strategies(limit: 100) { … recentSwaps(limit: 100) }` asked ~2 million rows.
 */
export const GRAPHQL_LIMITS = {
  /** Aliases per operation: a report names a few series side by side; 210 copies of one field is a bomb. */
  aliases: 20,
  /** Field depth: the schema's deepest real path (strategies → strategies → tokens → …) is 4–5 levels. */
  depth: 10,
  /** Lexer tokens: a full introspection query is ~200; also bounds the parser's time and recursion. */
  tokens: 3_000,
  /** Directives per operation: a few @include/@skip; the schema defines no others. */
  directives: 10,
  /**
   * graphql-armor's shape cost (each object 2, each scalar 1, ×1.5 per level): bounds breadth × depth,
   * blind to list sizes. A Relay page puts its nodes two levels down (edges, node), ×2.25: a page of
   * strategies with every field of the REST list costs ~13 800, a search page ~28 000, so 10× the
   * library's default (5 000); the list cost below bounds what a document fans out to.
   */
  shapeCost: 50_000,
  /**
   * Estimated fields resolved: a field with a `limit` (or Relay `first`) argument resolves its selection that many times
   * (defaults applied, variables read), a volume series once per bucket, every other field costs 1. A full
   * page of 100 strategies with 20 fields each is ~2 200; 23 days of an hourly series ~3 300, a year of a
   * daily one ~2 200; the issue's bomb is 210 × ~30 300. graphql-js completes a result's fields in one turn
   * of the event loop: a 92-day hourly series (~13 000) held it 22-32 ms, 23 days 8 ms, so the bound keeps
   * one document's turn near 10 ms (the public reads' p99 is ~16 ms), and what a document fans out to small.
   */
  listCost: 5_000,
} as const;

/** Documents refused for a limit of this file: answered 400 by `limitRefusalsAre400`. */
const refusals = new WeakSet<GraphQLError>();

/** A document refused for one of the limits (code GRAPHQL_VALIDATION_FAILED, or _PARSE_FAILED for tokens). */
export function limitRefusal(message: string, code = 'GRAPHQL_VALIDATION_FAILED'): GraphQLError {
  const error = new GraphQLError(message, { extensions: { code, http: { status: 400, spec: false } } });
  refusals.add(error);
  return error;
}

const validationError = (message: string) => limitRefusal(message);

/**
 * A refused document is a 400 whatever the Accept header. yoga answers `application/json` callers 200
 * for a parse or validation error it flags `spec` (GraphQL over HTTP), and flags every parse error so
 * after the plugins' own hooks: the flag is lifted here, as the result is sent, for these errors only.
 */
export const limitRefusalsAre400: Plugin = {
  onResultProcess({ result }) {
    if (Array.isArray(result) || !('errors' in result)) return;
    for (const error of result.errors ?? []) {
      if (!(error instanceof GraphQLError) || !refusals.has(error)) continue;
      const http = error.extensions.http as { spec?: boolean } | undefined;
      if (http) http.spec = false;
    }
  },
};

/** Reported as a validation error (400), never thrown from inside graphql-js's validation walk. */
const reportInvalid: GraphQLArmorRejectCallback = (ctx, error) => {
  ctx?.reportError(validationError(error.message.replace(/^Syntax Error: /, '')));
};

const rejecting = { propagateOnRejection: false, onReject: [reportInvalid] };

/** graphql-armor: aliases, depth, tokens, directives and shape cost, with the bounds above. */
export function armorPlugin(): Plugin {
  return EnvelopArmorPlugin({
    maxAliases: { n: GRAPHQL_LIMITS.aliases, ...rejecting },
    maxDepth: { n: GRAPHQL_LIMITS.depth, ignoreIntrospection: true, ...rejecting },
    maxDirectives: { n: GRAPHQL_LIMITS.directives, ...rejecting },
    costLimit: { maxCost: GRAPHQL_LIMITS.shapeCost, ignoreIntrospection: true, ...rejecting },
    // The parser has no validation context: past the limit it throws a syntax error (400).
    maxTokens: { n: GRAPHQL_LIMITS.tokens },
    // /graphql is behind a token; suggestions stay masked all the same (armor's default).
    blockFieldSuggestion: { enabled: true },
  }) as Plugin;
}

/**
 * A list field with a `limit` argument, or a connection with `first`, costs its selection that many
 * times (graphql-query-complexity; connection arguments carry their default page size).
 */
const limitEstimator: ComplexityEstimator = ({ args, childComplexity }) => {
  const limit: unknown = args.limit ?? args.first;
  // No `limit` argument: the next estimator (1 + its selection) decides.
  if (typeof limit !== 'number' || !Number.isFinite(limit)) return undefined;
  return 1 + Math.max(0, limit) * childComplexity;
};

/**
 * A volume series (`volumeSeries`, `Strategy.activity`) resolves its selection once per bucket of its
 * range: 92 days of hours is 2,208 buckets, so 20 aliases of it asked ~300,000 fields (a 3.6 MB body).
 * The fixed fields of the series are counted per bucket too: a slight over-estimate, on the safe side.
 */
const seriesEstimator: ComplexityEstimator = ({ field, args, childComplexity }) => {
  if (getNamedType(field.type).name !== 'VolumeSeries' || typeof args.granularity !== 'string')
    return undefined;
  try {
    const { from, to, step } = seriesRange(args as Parameters<typeof seriesRange>[0]);
    return 1 + ((to.getTime() - from.getTime()) / step) * childComplexity;
  } catch {
    // A range the resolver refuses (400 naming the argument): it costs what any field costs.
    return undefined;
  }
};

/**
 * The list cost of the operation about to run, read with its variables: graphql-query-complexity
 * walks the document. Beyond GRAPHQL_LIMITS.listCost the operation does not run (400). Checked at
 * execution, not validation: yoga caches validation per document, and the cost depends on variables.
 */
export function listCostPlugin(): Plugin<GraphQLContext> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      let cost: number;
      try {
        cost = getComplexity({
          schema: args.schema,
          query: args.document,
          variables: (args.variableValues ?? {}) as Record<string, unknown>,
          operationName: args.operationName ?? undefined,
          estimators: [seriesEstimator, limitEstimator, simpleEstimator({ defaultComplexity: 1 })],
        });
      } catch (error) {
        // Variables of the wrong type: graphql-js reports them when it runs the operation (400).
        if (error instanceof GraphQLError && /^Variable "\$/.test(error.message)) return;
        setResultAndStopExecution({
          errors: [validationError(error instanceof Error ? error.message : 'The document is too large.')],
        });
        return;
      }
      if (cost > GRAPHQL_LIMITS.listCost) {
        setResultAndStopExecution({
          errors: [
            validationError(
              `Query list cost of ${GRAPHQL_LIMITS.listCost} exceeded, found ${cost}: ask smaller pages (limit), fewer nested lists or fewer aliases.`,
            ),
          ],
        });
      }
    },
  };
}

/**
 * Operations /graphql runs at once, and how many more may wait for a turn. Analytics work shares the
 * process with the public paths: past these, a caller gets 503 UPSTREAM_UNAVAILABLE (retryable) at
 * once instead of a growing queue of documents.
 */
export const GRAPHQL_CONCURRENCY = { running: 4, waiting: 16 } as const;

/**
 * The analytics token's documents run one at a time (the others wait their turn in the same FIFO): each
 * holds a Postgres backend for its buckets, and two of those on a two-core box took the CPU the
 * public reads need (bystander p99 2.3× quiet with two loops, against the goal of 2×).
 */
export const ANALYTICS_CONCURRENCY = { running: 1, waiting: 16 } as const;

/** Express middleware bounding /graphql's concurrent operations (FIFO turns, released on close). */
export function concurrencyGate(
  docsUrl: string,
  bounds: { running: number; waiting: number } = GRAPHQL_CONCURRENCY,
): RequestHandler {
  let running = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  return (_req: Request, res: Response, next: NextFunction) => {
    const start = () => {
      res.once('close', release);
      next();
    };
    if (running < bounds.running) {
      running++;
      return start();
    }
    if (waiting.length >= bounds.waiting) {
      res.setHeader('Retry-After', '1');
      return sendError(
        res,
        new ApiError('UPSTREAM_UNAVAILABLE', 'Too many /graphql operations at once; retry shortly.'),
        docsUrl,
      );
    }
    const turn = () => start();
    waiting.push(turn);
    // A caller that leaves while waiting gives up its place.
    res.once('close', () => {
      const i = waiting.indexOf(turn);
      if (i >= 0) waiting.splice(i, 1);
    });
  };
}
