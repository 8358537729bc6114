import { ApiError } from '../lib/errors.js';
import { createKey, listKeys, revokeKey } from '../resolvers/apiKeys.js';
import type { ApiKeyRow } from '../store/apiKeys.js';
import { builder } from './builder.js';
import { canAdministerKeys, type GraphQLContext } from './context.js';

/** Keys are the administration token's alone: the analytics token (or any other caller) is refused. */
function requireKeyAdmin(ctx: GraphQLContext): void {
  if (!canAdministerKeys(ctx)) {
    throw new ApiError('FORBIDDEN', 'Key data and key administration need the administration token.');
  }
}

const ApiKeyEnvironment = builder.enumType('ApiKeyEnvironment', {
  values: { TEST: { value: 'test' }, LIVE: { value: 'live' } } as const,
});

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  fields: (t) => ({
    environment: t.field({ type: ApiKeyEnvironment, required: true }),
    scopes: t.stringList({
      required: false,
      defaultValue: ['prepare'],
      description: '"prepare" allows POST /v1/positions',
    }),
    origins: t.stringList({
      required: false,
      description: 'When set, a request whose Origin is not listed is 403 FORBIDDEN',
    }),
    label: t.string({ required: false }),
    prepareLimitPerMinute: t.int({ required: false, description: 'The agreed prepare bucket; default 6' }),
  }),
});

const CreatedApiKey = builder
  .objectRef<{ key: string; keyId: string; environment: 'test' | 'live'; scopes: string[] }>('CreatedApiKey')
  .implement({
    fields: (t) => ({
      key: t.exposeString('key', { description: 'Shown once, never stored in clear.' }),
      keyId: t.exposeString('keyId'),
      environment: t.expose('environment', { type: ApiKeyEnvironment }),
      scopes: t.exposeStringList('scopes'),
    }),
  });

const ApiKey = builder.objectRef<ApiKeyRow>('ApiKey').implement({
  description: 'An issued key, without its secret.',
  fields: (t) => ({
    keyId: t.exposeString('key_id'),
    environment: t.field({ type: ApiKeyEnvironment, resolve: (k) => k.environment }),
    scopes: t.exposeStringList('scopes'),
    origins: t.stringList({ nullable: true, resolve: (k) => k.origins }),
    label: t.string({ nullable: true, resolve: (k) => k.label }),
    prepareLimitPerMinute: t.exposeInt('prepare_limit_per_minute'),
    createdAt: t.field({ type: 'DateTime', resolve: (k) => k.created_at }),
    revokedAt: t.field({ type: 'DateTime', nullable: true, resolve: (k) => k.revoked_at }),
  }),
});

builder.queryField('apiKeys', (t) =>
  t.field({
    type: [ApiKey],
    resolve: (_root, _args, ctx) => {
      requireKeyAdmin(ctx);
      return listKeys(ctx.services.db);
    },
  }),
);

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKey,
    args: { input: t.arg({ type: CreateApiKeyInput, required: true }) },
    resolve: (_root, { input }, ctx) => {
      requireKeyAdmin(ctx);
      return createKey(ctx.services.db, input);
    },
  }),
  revokeApiKey: t.boolean({
    args: { keyId: t.arg.string({ required: true }) },
    resolve: (_root, { keyId }, ctx) => {
      requireKeyAdmin(ctx);
      return revokeKey(ctx.services.db, keyId);
    },
  }),
}));
