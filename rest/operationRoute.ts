import type { DocumentedRoute } from '../contract/openapi/types.js';
import type { Persisted } from './execute.js';
import type { RestRoute, RouteContext, RouteResult } from './route.js';

/**
 * A route that runs one persisted operation, declared as what it is: its path, method, bucket and auth,
 * its documented inputs (`doc`), the operation, the map from the request to the operation's variables
 * and how the result becomes the documented body. Everything the published document says of it comes
 * from `doc`, the operation's selection (contract/schemas) and its section of docs/api.
 *
 * The routes that keep a `handle` of their own do more than run one operation per request: the cached
 * catalogue reads and the badge answer from the response cache, the strategy lists splice the store's
 * rendered entries, the export and the event stream write streams, and the two prepares read the
 * Idempotency-Key into the operation's context at their own point of the checks.
 */
export interface OperationRouteSpec<R, V extends Record<string, unknown>> extends DocumentedRoute {
  operation: Persisted<R, V>;
  /** A check of its own before anything of the request is read (the demo's operator origin). */
  guard?(ctx: RouteContext): void;
  /** The operation's variables, read from the path, query and body through the documented shapes. */
  variables(ctx: RouteContext): V;
  /** REST names of the operation's paging variables in its errors (`first` → `limit`), when they differ. */
  renames?: Readonly<Record<string, string>>;
  /** The documented body of the result. */
  answer(ctx: RouteContext, result: R, variables: V): RouteResult;
}

export function operationRoute<R, V extends Record<string, unknown>>(
  spec: OperationRouteSpec<R, V>,
): RestRoute {
  const { operation, guard, variables, renames, answer, ...route } = spec;
  return {
    ...route,
    async handle(ctx) {
      guard?.(ctx);
      const values = variables(ctx);
      const result = await ctx.operations.run(operation, values, ctx.graphql(), renames);
      return answer(ctx, result, values);
    },
  };
}
