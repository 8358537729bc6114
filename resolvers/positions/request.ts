/**
 * The intent of a new position (POST /v1/positions, SPEC §2.4, and the preparePosition mutation) and its
 * header, validated before anything reaches SQL or RPC. `positionRequestSchema` is the one definition
 * of its rules and their messages: the route parses with it, the resolver checks every other caller's
 * input with it, and the OpenAPI document is generated from it (with `POSITION_LIMITS` for the bounds
 * SPEC leaves open).
 */
import { english } from 'viem/accounts';
import { z } from 'zod';
import { ApiError } from '../../lib/errors.js';
import { parseJsonBody } from '../../lib/jsonBody.js';
import { MAX_MAKER_FEE_BPS } from './fees.js';

export const POSITION_LIMITS = {
  /** uint248: Aqua keeps virtual balances in 248 bits (PROTOCOL.md), so a larger amount cannot ship. */
  maxAmount: (1n << 248n) - 1n,
  /** makerFeeBps on the 1e7 scale: 2000000 = 20%. */
  maxMakerFeeBps: MAX_MAKER_FEE_BPS,
  /**
   * The metadata map (SPEC leaves its bounds open): at most 20 entries, keys 1–64 characters of
   * METADATA_KEY_PATTERN, values strings of at most 256 characters that do not look like secrets.
   */
  metadataMaxKeys: 20,
  metadataMaxKeyLength: 64,
  metadataMaxValueLength: 256,
} as const;

export const WALLET_PATTERN = /^0x[a-fA-F0-9]{40}$/;
/** A symbol (`USDC`) or a token address; which ones a chain supports is the registry's business. */
export const SYMBOL_PATTERN = /^(?:0x[0-9a-fA-F]{40}|[A-Za-z0-9][A-Za-z0-9._-]{0,31})$/;
/** Base units: digits only, never a float, a sign or an exponent. 78 digits bound any uint256. */
export const AMOUNT_PATTERN = /^[0-9]{1,78}$/;
export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** Metadata keys: plain identifiers (no `__proto__`, no control characters). */
export const METADATA_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;
export const POSITION_ID_PATTERN = /^0x[0-9a-fA-F]{64}$/;
/** Metadata values: any text but U+0000 and unpaired surrogates (neither fits in Postgres jsonb). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is exactly what it refuses
export const METADATA_VALUE_PATTERN = /^[^\u0000\uD800-\uDFFF]*$/u;

const amount = z
  .string({ error: 'must be a string of base units, e.g. "1000000"' })
  .regex(AMOUNT_PATTERN, {
    error: 'must be an integer string of base units (digits only: no sign, point or exponent)',
    abort: true,
  })
  .refine((value) => BigInt(value) > 0n, 'must be greater than 0: both sides of the position need a balance')
  .refine(
    (value) => BigInt(value) <= POSITION_LIMITS.maxAmount,
    'must fit in uint248 (Aqua balances are 248-bit)',
  )
  .transform((value) => BigInt(value).toString())
  .meta({ description: 'Integer string in base units (1..2^248-1); never a float.', example: '1000000000' });

const deposit = z.strictObject({
  symbol: z
    .string({ error: 'must be a string' })
    .regex(SYMBOL_PATTERN, 'must be a token symbol (e.g. USDC) or a 0x token address')
    .meta({ description: 'Token symbol or address; the chain must list it (422 UNPROCESSABLE otherwise).' }),
  amount,
});

const BIP39 = new Set(english);
const PRIVATE_KEY = /(?:^|[^0-9a-fA-F])(?:0x)?[0-9a-fA-F]{64}(?:$|[^0-9a-fA-F])/;
const API_KEY = /svc_(?:live|test)_/i;
const SECRET_NAMES =
  /^(?:private[_-]?key|secret[_-]?key|mnemonic|seed(?:[_-]?phrase)?|api[_-]?key|password|passphrase)$/i;

/** True when 12 or more consecutive words of the value are BIP-39 words: a seed phrase, whole or in part. */
function looksLikeMnemonic(value: string): boolean {
  let run = 0;
  for (const word of value.toLowerCase().split(/[\s,;]+/)) {
    run = BIP39.has(word) ? run + 1 : 0;
    if (run >= 12) return true;
  }
  return false;
}

/** Why a metadata entry looks like a secret, or null. The message never repeats the value. */
export function secretLike(key: string, value: string): string | null {
  if (SECRET_NAMES.test(key)) return 'the key names a secret; metadata must hold no secrets';
  if (PRIVATE_KEY.test(value))
    return 'must not hold a 32-byte hex string (it looks like a private key); metadata must hold no secrets';
  if (looksLikeMnemonic(value))
    return 'must not hold a seed phrase (12 or more BIP-39 words); metadata must hold no secrets';
  if (API_KEY.test(value)) return 'must not hold an API key; metadata must hold no secrets';
  return null;
}

const metadata = z
  .record(
    z
      .string()
      .max(
        POSITION_LIMITS.metadataMaxKeyLength,
        `keys are at most ${POSITION_LIMITS.metadataMaxKeyLength} characters`,
      )
      .regex(
        METADATA_KEY_PATTERN,
        'keys start with a letter or digit and hold only letters, digits and _ . : -',
      ),
    z
      .string({ error: 'values must be strings' })
      .max(
        POSITION_LIMITS.metadataMaxValueLength,
        `values are at most ${POSITION_LIMITS.metadataMaxValueLength} characters`,
      )
      // Postgres jsonb holds neither U+0000 nor an unpaired surrogate: storing one was a 500.
      .regex(
        METADATA_VALUE_PATTERN,
        'values must be Unicode text without NUL characters or unpaired surrogates',
      ),
    { error: 'must be an object whose values are strings' },
  )
  .superRefine((map, ctx) => {
    const keys = Object.keys(map);
    if (keys.length > POSITION_LIMITS.metadataMaxKeys) {
      ctx.addIssue({ code: 'custom', message: `holds at most ${POSITION_LIMITS.metadataMaxKeys} entries` });
      return;
    }
    for (const key of keys) {
      const reason = secretLike(key, map[key]!);
      if (reason) ctx.addIssue({ code: 'custom', path: [key], message: reason });
    }
  })
  .meta({
    description:
      'Free-form map of strings, echoed back (and stated to be returned in webhooks and exports). At most 20 ' +
      'entries, keys of 1-64 characters, values of at most 256 characters; it must hold no secrets: a value ' +
      'with a 32-byte hex string, 12+ BIP-39 words or an API key, or a key named like privateKey/mnemonic/' +
      'apiKey/password, is refused with 400.',
    maxProperties: POSITION_LIMITS.metadataMaxKeys,
  });

/** A positive price as decimal text: digits, at most one point, at most 36 digits in all. */
const PRICE_PATTERN = /^(?=[0-9.]{1,37}$)(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/;
const price = (what: string) =>
  z
    .string({ error: `must be ${what} as a decimal string, e.g. "0.995"` })
    .regex(PRICE_PATTERN, `must be ${what} as a decimal string of at most 36 digits, e.g. "0.995"`)
    .meta({ examples: ['0.995'] });

/** The pegged kind's flat band when none is asked: ±0.2 % around the peg. */
export const DEFAULT_FLAT_BAND_PERCENT = 0.2;
/** The narrowest band: below ±0.01 % the curve's linear width passes the router's bound (5000e27). */
export const MIN_FLAT_BAND_PERCENT = 0.01;

/**
 * Which curve the position runs. Prices are "the price of the second deposit's token in the first's":
 * how many of the first token one whole second token is worth.
 */
export const strategySchema = z
  .discriminatedUnion(
    'kind',
    [
      z.strictObject({
        kind: z.literal('xyc').meta({ description: 'x·y=k over the two deposits (the default).' }),
      }),
      z.strictObject({
        kind: z.literal('concentrated').meta({
          description:
            'x·y=k with the liquidity concentrated in a price range: a tighter price for the same deposit.',
        }),
        priceRange: z
          .strictObject(
            {
              min: price('the lowest price'),
              max: price('the highest price'),
            },
            { error: 'must be an object { min, max }' },
          )
          .meta({
            description:
              "The range of the price of the second deposit's token in the first's (decimal strings): outside it one side is all sold.",
          }),
      }),
      z.strictObject({
        kind: z.literal('pegged').meta({
          description:
            'A curve that stays flat near a peg: for pairs that trade near a fixed rate (USDC/USDT).',
        }),
        pegPrice: price('the peg').optional().meta({
          description:
            'The price of the second deposit\'s token in the first\'s the position opens at (default "1"); the deposits must be in that ratio, within the band.',
        }),
        flatBandPercent: z
          .number({ error: 'must be a number of percent, e.g. 0.2' })
          .min(
            MIN_FLAT_BAND_PERCENT,
            `must be at least ${MIN_FLAT_BAND_PERCENT} (the flattest band the router allows)`,
          )
          .max(50, 'must be at most 50')
          .optional()
          .meta({
            description: `How far from the peg, in percent either side, the price stays nearly flat (default ${DEFAULT_FLAT_BAND_PERCENT}): narrower is flatter near the peg and steeper beyond.`,
          }),
      }),
    ],
    { error: 'kind must be one of xyc, concentrated, pegged' },
  )
  .meta({
    description:
      'Which curve the position runs (absent: xyc). The protocol fee is the first instruction of every kind and cannot be removed.',
  });

/**
 * `simulate` of a prepared answer's body (POST /v1/positions, POST /v1/swaps): the steps run in one
 * eth_simulateV1 before the answer. Not part of what the Idempotency-Key compares.
 */
export const simulateField = z.boolean({ error: 'must be a boolean' }).optional().meta({
  description:
    'true: run `transactions` in order from the wallet on the latest block in one eth_simulateV1 and answer `simulation` (gas per step, the balance and allowance changes of the wallet); a step that would revert is 422. The same as the query parameter `simulate`.',
});

export const positionRequestSchema = z
  .strictObject(
    {
      chain: z.string({ error: 'must be a chain key such as "base"' }).min(1).max(64).meta({
        description: 'A chain key of the live catalogue (GET /api/chains), e.g. base, arc, baseSepolia.',
      }),
      wallet: z
        .string({ error: 'must be the 0x address that will sign' })
        .regex(WALLET_PATTERN, 'must match ^0x[a-fA-F0-9]{40}$')
        .meta({ description: 'The address that will sign; preparation is only for the address named.' }),
      deposits: z
        .array(deposit, { error: 'must be an array of exactly 2 items' })
        .length(2, 'must hold exactly 2 items')
        .meta({
          description: 'Exactly 2 different tokens; the order does not matter (tokenA is the lower address).',
        }),
      makerFeeBps: z
        .number({ error: 'must be an integer' })
        .int('must be an integer')
        .min(0, 'must be 0 or more')
        .max(POSITION_LIMITS.maxMakerFeeBps, `must be at most ${POSITION_LIMITS.maxMakerFeeBps}`)
        .default(0)
        .meta({
          description:
            "The integrator's commission on the 1e7 scale (30000 = 0.30%), on top of the fixed 0.05% protocol fee.",
        }),
      includeApprovals: z.boolean({ error: 'must be a boolean' }).default(true).meta({
        description: 'false: only the ship step. true: approve steps where the live allowance is short.',
      }),
      checkBalances: z
        .boolean({ error: 'must be a boolean' })
        .default(false)
        .meta({ description: 'Adds live balance checks (balance_a, balance_b) to preflight.' }),
      metadata: metadata.optional(),
      strategy: strategySchema.optional(),
      approval: z
        .enum(['exact', 'unlimited'], { error: 'must be "exact" or "unlimited"' })
        .default('exact')
        .meta({
          description:
            "How far a short allowance to Aqua is raised. One allowance serves every position of the wallet and each swap uses it up, so `exact` (the default) approves this position's amount plus the live virtual balances of the wallet's open positions on the chain; `unlimited` approves max uint256. Either way no approve step is returned when the allowance already covers that sum.",
        }),
      simulate: simulateField,
    },
    // Unknown fields are refused (strictObject), so privateKey, mnemonic or signature can never be accepted.
  )
  .superRefine((body, ctx) => {
    const [a, b] = body.deposits;
    if (a && b && a.symbol.toLowerCase() === b.symbol.toLowerCase()) {
      ctx.addIssue({
        code: 'custom',
        path: ['deposits', 1, 'symbol'],
        message: 'the two deposits must be different tokens',
      });
    }
  });

export type PositionRequest = z.output<typeof positionRequestSchema>;

/**
 * The request body as JSON Schema (draft 2020-12), for the OpenAPI document. Checks that JSON Schema
 * cannot express (amount > 0 and ≤ uint248, two different tokens, secret-looking metadata) are in the
 * descriptions.
 */
export function positionRequestJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(positionRequestSchema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
}

/** Parses the JSON body; the first problem becomes a 400 INVALID_PARAMETER naming its field. */
export function parsePositionRequest(body: unknown): PositionRequest {
  return parseJsonBody(positionRequestSchema, body, {
    notObject: 'The body must be a JSON object (see POST /v1/positions in /openapi.json).',
    unknownField: (field) =>
      `${field}: unknown field; POST /v1/positions accepts only the fields its schema lists (/openapi.json).`,
  });
}

/** The optional Idempotency-Key header: a uuid (any version), normalised to lower case. */
export function parseIdempotencyKey(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!UUID_PATTERN.test(value)) {
    throw ApiError.invalid(
      'Idempotency-Key',
      'The Idempotency-Key header must be a uuid, e.g. 123e4567-e89b-12d3-a456-426614174000.',
    );
  }
  return value.toLowerCase();
}

/** The path parameter of GET /v1/positions/{positionId}, normalised to lower case. */
export function parsePositionId(value: unknown): string {
  if (typeof value !== 'string' || !POSITION_ID_PATTERN.test(value)) {
    throw ApiError.invalid(
      'positionId',
      'positionId must match ^0x[0-9a-fA-F]{64}$ (the strategyHash of the prepare call).',
    );
  }
  return value.toLowerCase();
}
