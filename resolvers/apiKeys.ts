import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { BUCKET_LIMITS } from '../lib/buckets.js';
import { ApiError } from '../lib/errors.js';
import type { Services } from '../lib/services.js';
import { type ApiKeyRow, findApiKey, insertApiKey, listApiKeys, revokeApiKey } from '../store/apiKeys.js';
import type { Db } from '../store/db.js';

export type KeyEnvironment = 'test' | 'live';

export interface AuthenticatedKey {
  keyId: string;
  environment: KeyEnvironment;
  scopes: string[];
  origins: string[] | null;
  prepareLimitPerMinute: number;
  /** The agreed `write` bucket (swaps, dock, approvals), requests per minute. */
  writeLimitPerMinute: number;
}

export interface CreateKeyInput {
  environment: KeyEnvironment;
  scopes?: string[] | null;
  origins?: string[] | null;
  label?: string | null;
  prepareLimitPerMinute?: number | null;
  writeLimitPerMinute?: number | null;
}

export interface CreatedKey {
  key: string;
  keyId: string;
  environment: KeyEnvironment;
  scopes: string[];
}

export const KNOWN_SCOPES = ['prepare'] as const;
/** The limits of a key that agreed no other: the buckets' own (SPEC §8). */
export const DEFAULT_PREPARE_LIMIT = BUCKET_LIMITS.prepare;
export const DEFAULT_WRITE_LIMIT = BUCKET_LIMITS.write;
/** The most an agreed bucket may be raised to, requests per minute. */
export const MAX_AGREED_LIMIT = 100_000;

/** An agreed limit of the input, or its default: a whole number 1..MAX_AGREED_LIMIT. */
function agreedLimit(
  value: number | null | undefined,
  field: 'prepareLimitPerMinute' | 'writeLimitPerMinute',
  fallback: number,
): number {
  const limit = value ?? fallback;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_AGREED_LIMIT) {
    throw ApiError.invalid(`input.${field}`, `${field} must be 1..${MAX_AGREED_LIMIT}.`);
  }
  return limit;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const KEY_PATTERN = /^svc_(live|test)_([A-Za-z0-9]{8,32})_([A-Za-z0-9]{24,128})$/;
/** One message for every cause, so that a 401 never tells which check failed (SPEC §5.6). */
export const UNAUTHORIZED_MESSAGE = 'A valid API key is required: Authorization: Bearer <API_KEY>.';

function randomAlphanumeric(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

function normaliseOrigin(origin: string, index: number): string {
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
    return url.origin;
  } catch {
    throw ApiError.invalid(`input.origins[${index}]`, `"${origin}" is not an http(s) origin.`);
  }
}

export async function createKey(db: Db, input: CreateKeyInput): Promise<CreatedKey> {
  const scopes = [...new Set(input.scopes ?? ['prepare'])];
  for (const [i, scope] of scopes.entries()) {
    if (!(KNOWN_SCOPES as readonly string[]).includes(scope)) {
      throw ApiError.invalid(
        `input.scopes[${i}]`,
        `Unknown scope "${scope}"; known: ${KNOWN_SCOPES.join(', ')}.`,
      );
    }
  }
  const origins = input.origins ? input.origins.map(normaliseOrigin) : null;
  const prepareLimit = agreedLimit(
    input.prepareLimitPerMinute,
    'prepareLimitPerMinute',
    DEFAULT_PREPARE_LIMIT,
  );
  const writeLimit = agreedLimit(input.writeLimitPerMinute, 'writeLimitPerMinute', DEFAULT_WRITE_LIMIT);
  if (input.label && input.label.length > 200)
    throw ApiError.invalid('input.label', 'label is at most 200 characters.');
  const keyId = randomAlphanumeric(12);
  const secret = randomAlphanumeric(32);
  await insertApiKey(db, {
    key_id: keyId,
    environment: input.environment,
    secret_hash: hashSecret(secret),
    scopes,
    origins,
    label: input.label ?? null,
    prepare_limit_per_minute: prepareLimit,
    write_limit_per_minute: writeLimit,
  });
  return {
    key: `svc_${input.environment}_${keyId}_${secret}`,
    keyId,
    environment: input.environment,
    scopes,
  };
}

/**
 * Revokes a key. This process forgets its row before answering (the others when the change notice
 * reaches them: store/apiKeyCache.ts), so the key's next request here is refused.
 */
export async function revokeKey(services: Pick<Services, 'db' | 'apiKeys'>, keyId: string): Promise<boolean> {
  const revoked = await revokeApiKey(services.db, keyId);
  services.apiKeys?.forget(keyId);
  return revoked;
}

export const listKeys = (db: Db): Promise<ApiKeyRow[]> => listApiKeys(db);

interface BearerParts {
  environment: KeyEnvironment;
  keyId: string;
  secret: string;
}

/** `Authorization: Bearer svc_<env>_<keyId>_<secret>` taken apart, by its form only (no look-up). */
function parseBearer(authorization: string | undefined): BearerParts | null {
  const match = /^Bearer ([^\s]+)$/.exec(authorization ?? '');
  const parts = match?.[1] ? KEY_PATTERN.exec(match[1]) : null;
  if (!parts) return null;
  return { environment: parts[1] as KeyEnvironment, keyId: parts[2]!, secret: parts[3]! };
}

/** The keyId a well-formed key names (whether or not it exists), or null: costs no SQL. */
export function keyIdOf(authorization: string | undefined): string | null {
  return parseBearer(authorization)?.keyId ?? null;
}

const DUMMY_HASH = hashSecret('not-a-secret-but-the-same-amount-of-work');

/**
 * Resolves `Authorization: Bearer <key>` to a key. Missing, malformed, unknown, revoked and
 * wrong-secret keys all end in the same UNAUTHORIZED error.
 */
export async function authenticate(
  services: Pick<Services, 'db' | 'apiKeys'>,
  authorization: string | undefined,
): Promise<AuthenticatedKey> {
  // Built only when thrown: an Error captures its stack when constructed, a cost every request paid.
  const unauthorized = () => new ApiError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
  const parts = parseBearer(authorization);
  if (!parts) throw unauthorized();
  const { environment, keyId, secret } = parts;
  // Whether this process keeps the row now, i.e. whether the look-up below costs no store read.
  const kept = services.apiKeys?.peek(keyId) !== undefined;
  const row = await (services.apiKeys ? services.apiKeys.find(keyId) : findApiKey(services.db, keyId));
  const expected = row?.secret_hash ?? DUMMY_HASH;
  const matches = timingSafeEqual(hashSecret(secret), expected);
  if (!row || !matches || row.revoked_at !== null || row.environment !== environment) {
    // A refusal costs one store read whatever the key id: an id this process keeps (in use) would
    // otherwise be refused a round trip sooner than an unknown one, and ids could be enumerated.
    if (kept) await findApiKey(services.db, keyId).catch(() => undefined);
    throw unauthorized();
  }
  return {
    keyId: row.key_id,
    environment: row.environment,
    scopes: row.scopes,
    origins: row.origins,
    prepareLimitPerMinute: row.prepare_limit_per_minute,
    writeLimitPerMinute: row.write_limit_per_minute,
  };
}

/** 403 when the key lacks the scope or the request's Origin is not one the key allows. */
export function authorize(key: AuthenticatedKey, scope: string | null, origin: string | undefined): void {
  if (scope && !key.scopes.includes(scope)) {
    throw new ApiError('FORBIDDEN', `This key does not have the "${scope}" scope.`);
  }
  if (key.origins && origin !== undefined && !key.origins.includes(origin)) {
    throw new ApiError('FORBIDDEN', 'Requests from this Origin are not allowed for this key.');
  }
}
