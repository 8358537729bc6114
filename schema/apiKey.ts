import { ApiError } from '../lib/errors.js';
import { createKey, listKeys, revokeKey } from '../resolvers/apiKeys.js';
import { canAdministerKeys, type GraphQLContext } from '../resolvers/context.js';
import type { ApiKeyRow } from '../store/apiKeys.js';
import { builder } from './builder.js';

/** Keys are the administration token's alone: the analytics token (or any other caller) is refused. */
function requireKeyAdmin(ctx: GraphQLContext): void {
  if (!canAdministerKeys(ctx)) {
    throw new ApiError('FORBIDDEN', 'Key data and key administration need the administration token.');
  }
}

const ApiKeyEnvironment = builder.enumType('ApiKeyEnvironment', {
  description: 'Which networks a key may prepare for.',
  values: {
    TEST: { value: 'test', description: 'Test networks only (baseSepolia); keys svc_test_….' },
    LIVE: { value: 'live', description: 'Live networks only; keys svc_live_….' },
  } as const,
});

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  description: 'What a new key may do.',
  fields: (t) => ({
    environment: t.field({ type: ApiKeyEnvironment, required: true, description: 'Test or live networks.' }),
    scopes: t.stringList({
      required: false,
      defaultValue: ['prepare'],
      description: '"prepare" allows POST /v1/positions',
    }),
    origins: t.stringList({
      required: false,
      description: 'When set, a request whose Origin is not listed is 403 FORBIDDEN',
    }),
    label: t.string({ required: false, description: 'A free note for the operator (whose key it is).' }),
    prepareLimitPerMinute: t.int({
      required: false,
      description: 'The agreed prepare bucket, requests per minute, 1..100000; default 6',
    }),
    writeLimitPerMinute: t.int({
      required: false,
      description:
        'The agreed write bucket (POST /v1/swaps, POST /v1/positions/{id}/dock and /approvals), requests per minute, 1..100000; default 6',
    }),
  }),
});

const CreatedApiKey = builder
  .objectRef<{ key: string; keyId: string; environment: 'test' | 'live'; scopes: string[] }>('CreatedApiKey')
  .implement({
    description: 'A key just issued, with its secret (the only time it is shown).',
    fields: (t) => ({
      key: t.exposeString('key', { description: 'Shown once, never stored in clear.' }),
      keyId: t.exposeString('keyId', {
        description: 'The public id of the key (part of the key; safe to log).',
      }),
      environment: t.expose('environment', {
        type: ApiKeyEnvironment,
        description: 'Test or live networks.',
      }),
      scopes: t.exposeStringList('scopes', { description: 'What the key may do ("prepare").' }),
    }),
  });

const ApiKey = builder.objectRef<ApiKeyRow>('ApiKey').implement({
  description: 'An issued key, without its secret.',
  fields: (t) => ({
    keyId: t.exposeString('key_id', { description: 'The public id of the key.' }),
    environment: t.field({
      type: ApiKeyEnvironment,
      resolve: (k) => k.environment,
      description: 'Test or live networks.',
    }),
    scopes: t.exposeStringList('scopes', { description: 'What the key may do ("prepare").' }),
    origins: t.stringList({
      nullable: true,
      resolve: (k) => k.origins,
      description:
        'Browser Origins that may call with the key (CORS); null: no browser access, the key belongs on a server.',
    }),
    label: t.string({
      nullable: true,
      resolve: (k) => k.label,
      description: "The operator's note; null when none.",
    }),
    prepareLimitPerMinute: t.exposeInt('prepare_limit_per_minute', {
      description: 'The prepare bucket of the key, requests per minute.',
    }),
    writeLimitPerMinute: t.exposeInt('write_limit_per_minute', {
      description: 'The write bucket of the key (swaps, dock, approvals), requests per minute.',
    }),
    createdAt: t.field({
      type: 'DateTime',
      resolve: (k) => k.created_at,
      description: 'When it was issued.',
    }),
    revokedAt: t.field({
      type: 'DateTime',
      nullable: true,
      resolve: (k) => k.revoked_at,
      description: 'When it was revoked; null while it is valid.',
    }),
  }),
});

builder.queryField('apiKeys', (t) =>
  t.field({
    type: [ApiKey],
    description: 'Every issued key, newest first, without secrets (administration token only).',
    resolve: (_root, _args, ctx) => {
      requireKeyAdmin(ctx);
      return listKeys(ctx.services.db);
    },
  }),
);

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKey,
    description: 'Issues a key and returns its secret once (administration token only).',
    args: { input: t.arg({ type: CreateApiKeyInput, required: true, description: 'What the key may do.' }) },
    resolve: (_root, { input }, ctx) => {
      requireKeyAdmin(ctx);
      return createKey(ctx.services.db, input);
    },
  }),
  revokeApiKey: t.boolean({
    description:
      'Revokes a key at once (administration token only); true when it was valid, false when unknown or already revoked.',
    args: { keyId: t.arg.string({ required: true, description: 'The public id of the key.' }) },
    resolve: (_root, { keyId }, ctx) => {
      requireKeyAdmin(ctx);
      return revokeKey(ctx.services, keyId);
    },
  }),
}));
