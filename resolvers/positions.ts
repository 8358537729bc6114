/**
 * Position preparation and tracking (SPEC §2.4–2.6, §3, §4.9, §4.10). The service builds the order
 * that carries the protocol fee and the unsigned transactions that ship it; it never signs, never
 * broadcasts and reserves nothing. Tracking is observation only: a prepared position becomes
 * `shipped` and `filled` when the indexer sees its strategy hash in the catalogue.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  type Abi,
  type Address,
  checksumAddress,
  formatUnits,
  getAddress,
  type Hex,
  keccak256,
  stringToBytes,
  zeroAddress,
} from 'viem';
import { erc20Abi } from '../chain/abi.js';
import { approveCalldata, shipCalldata } from '../chain/calldata.js';
import { classifyRpcError } from '../chain/clients.js';
import {
  AQUA_TRAITS,
  decodeStrategy,
  encodeStrategy,
  isPlainAquaOrder,
  strategyHashOf,
} from '../chain/order.js';
import {
  apiFeeToOnChain,
  aquaProtocolFeeAmountIn,
  buildProgram,
  decodeProgram,
  flatFeeAmountIn,
  PROTOCOL_FEE_1E9,
  salt as saltInstruction,
  xycSwap,
} from '../chain/program.js';
import type { ChainConfig, TokenConfig } from '../lib/config.js';
import { ApiError, type ErrorIssue } from '../lib/errors.js';
import type { GraphQLContext } from '../schema/context.js';
import {
  findPositionByIdempotencyKey,
  findPositionStatus,
  insertPosition,
  type PositionRow,
} from '../store/positions.js';
import { UNAUTHORIZED_MESSAGE } from './apiKeys.js';

/** The protocol fee on the API's 1e7 scale (0.05%); on chain it is ×100 (PROTOCOL_FEE_1E9). */
export const PROTOCOL_FEE_BPS = 5000;
export const MAX_MAKER_FEE_BPS = 2_000_000;
const MAX_AMOUNT = (1n << 248n) - 1n;
const WALLET = /^0x[a-fA-F0-9]{40}$/;
const AMOUNT = /^[0-9]{1,78}$/;
const POSITION_ID = /^0x[0-9a-f]{64}$/;

export const PREPARE_NOTE =
  'Nothing has been signed or broadcast. These are unsigned transactions for the wallet named in data.wallet to sign and send itself, in step order; nothing is reserved, locked or expiring.';
export const SIGNER_NOTE =
  'The client signs and broadcasts. The service prepared unsigned transactions only; it never signed, broadcast or held funds.';
export const TIMESTAMPS_MEANING =
  'firstSeen* timestamps record when the service first observed a state in the live catalogue, not when it happened on chain.';

export interface PreparePositionInput {
  chain: string;
  wallet: string;
  deposits: readonly { symbol: string; amount: string }[];
  makerFeeBps?: number | null;
  includeApprovals?: boolean | null;
  checkBalances?: boolean | null;
  metadata?: Record<string, string> | null;
}

export interface PreparedTransaction {
  step: number;
  purpose: 'approve' | 'ship';
  to: string;
  value: string;
  data: string;
  description: string;
}

export interface FeeBreakdown {
  protocolFeeBps: number;
  protocolFeePercent: string;
  makerFeeBps: number;
  makerFeePercent: string;
  totalFeePercent: string;
  embeddedIn: 'signed_order_data';
  removable: false;
  explanation: string;
}

export interface PositionToken {
  symbol: string;
  address: string;
  amount: string;
  decimals: number;
}

export interface PreflightCheck {
  name: string;
  ok: boolean;
  detail: string | null;
}

/** A client-fixable problem the transactions alone do not solve (the shape of SPEC §7 `issues[]`). */
export interface PreflightIssue extends ErrorIssue {
  type: 'INSUFFICIENT_BALANCE' | 'INSUFFICIENT_ALLOWANCE';
  expected: string;
  actual: string;
  token: string;
}

/** The stored payload: the response `data` without metadata, plus when it was prepared. */
export interface PreparedPayload {
  status: 'prepared';
  chain: string;
  chainId: number;
  wallet: string;
  strategyHash: string;
  transactions: PreparedTransaction[];
  fee: FeeBreakdown;
  position: {
    tokenA: PositionToken;
    tokenB: PositionToken;
    impliedRate: number | null;
    programBytes: number;
  };
  preflight: { status: 'ready' | 'review'; checks: PreflightCheck[]; issues: PreflightIssue[] };
  idempotent: boolean;
  preparedAt: string;
}

export interface PreparedPosition extends PreparedPayload {
  metadata: Record<string, string> | null;
  /** True when this answer is the stored payload of an earlier call with the same Idempotency-Key. */
  replayed: boolean;
}

export interface PositionStatus {
  positionId: string;
  strategyHash: string;
  status: 'prepared' | 'shipped' | 'filled';
  chain: string;
  chainId: number;
  wallet: string;
  tokenA: { symbol: string | null; address: string; amount: string; decimals: number | null };
  tokenB: { symbol: string | null; address: string; amount: string; decimals: number | null };
  makerFeeBps: number | null;
  protocolFeeBps: number;
  observedOnChain: boolean;
  volumeUsd: number | null;
  preparedAt: Date;
  firstSeenOnChainAt: Date | null;
  firstSeenFilledAt: Date | null;
  signer: string;
  checkedAt: string;
  timestampsMeaning: string;
}

/**
 * A fee on the API's 1e7 scale as exact percentage text: 5000 → "0.05", 30000 → "0.3",
 * 2005000 → "20.05", 0 → "0". Integer arithmetic, so no float artefacts.
 */
export function feePercent(bps1e7: number): string {
  if (!Number.isSafeInteger(bps1e7) || bps1e7 < 0)
    throw new RangeError(`fee must be a non-negative integer: ${bps1e7}`);
  const whole = Math.floor(bps1e7 / 100_000);
  const fraction = String(bps1e7 % 100_000)
    .padStart(5, '0')
    .replace(/0+$/, '');
  return fraction === '' ? String(whole) : `${whole}.${fraction}`;
}

export function feeBreakdown(makerFeeBps: number): FeeBreakdown {
  const makerFeePercent = feePercent(makerFeeBps);
  const totalFeePercent = feePercent(PROTOCOL_FEE_BPS + makerFeeBps);
  return {
    protocolFeeBps: PROTOCOL_FEE_BPS,
    protocolFeePercent: feePercent(PROTOCOL_FEE_BPS),
    makerFeeBps,
    makerFeePercent,
    totalFeePercent,
    embeddedIn: 'signed_order_data',
    removable: false,
    explanation:
      `Every trade against this position pays a ${feePercent(PROTOCOL_FEE_BPS)}% protocol fee on its input amount` +
      (makerFeeBps > 0
        ? ` and your ${makerFeePercent}% maker fee, which stays in the position (${totalFeePercent}% in total).`
        : '.') +
      ' Both are instructions of the order your wallet signs (the strategy bytes shipped to Aqua), ahead of the' +
      ' swap curve: they are not a separate transfer or invoice, and no parameter removes the protocol fee.',
  };
}

/** The order's salt: derived from (key, Idempotency-Key) so a repeat has the same hash; random otherwise. */
export function positionSalt(keyId: string, idempotencyKey: string | null): bigint {
  if (idempotencyKey === null) return BigInt(`0x${randomBytes(8).toString('hex')}`);
  const digest = keccak256(stringToBytes(`aqua-position-salt\u0000${keyId}\u0000${idempotencyKey}`));
  return BigInt(digest.slice(0, 18));
}

/** The canonical request (tokens resolved and sorted, defaults applied, metadata keys sorted), hashed. */
function fingerprintOf(intent: {
  chain: string;
  wallet: string;
  tokens: readonly { address: string; amount: bigint }[];
  makerFeeBps: number;
  includeApprovals: boolean;
  checkBalances: boolean;
  metadata: Record<string, string> | null;
}): string {
  const canonical = JSON.stringify([
    intent.chain,
    intent.wallet.toLowerCase(),
    intent.tokens.map((t) => [t.address.toLowerCase(), t.amount.toString()]),
    intent.makerFeeBps,
    intent.includeApprovals,
    intent.checkBalances,
    intent.metadata === null
      ? null
      : Object.entries(intent.metadata).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

/** Defensive checks of what the REST layer has already validated (SPEC §2.4), for any other caller. */
function assertInput(input: PreparePositionInput): void {
  if (!WALLET.test(input.wallet)) throw ApiError.invalid('wallet', 'wallet must match ^0x[a-fA-F0-9]{40}$.');
  if (input.deposits.length !== 2) throw ApiError.invalid('deposits', 'deposits must hold exactly 2 items.');
  input.deposits.forEach((d, i) => {
    if (!AMOUNT.test(d.amount) || BigInt(d.amount) === 0n || BigInt(d.amount) > MAX_AMOUNT) {
      throw ApiError.invalid(
        `deposits[${i}].amount`,
        'amount must be a positive integer string that fits in uint248.',
      );
    }
  });
  const metadata = input.metadata;
  if (
    metadata !== null &&
    metadata !== undefined &&
    (typeof metadata !== 'object' ||
      Array.isArray(metadata) ||
      Object.keys(metadata).length > 20 ||
      Object.values(metadata).some((v) => typeof v !== 'string'))
  ) {
    throw ApiError.invalid('metadata', 'metadata must be a map of at most 20 string values.');
  }
  const fee = input.makerFeeBps ?? 0;
  if (!Number.isInteger(fee) || fee < 0 || fee > MAX_MAKER_FEE_BPS) {
    throw ApiError.invalid('makerFeeBps', `makerFeeBps must be an integer in 0..${MAX_MAKER_FEE_BPS}.`);
  }
}

/** SPEC §5.5: a test key names only test networks, a live key only live ones. */
function assertEnvironment(environment: 'test' | 'live', chain: ChainConfig): void {
  if (environment === 'test' && !chain.testnet) {
    throw new ApiError(
      'FORBIDDEN',
      `A test key may only prepare on test networks; "${chain.key}" is a live chain.`,
      {
        parameter: 'chain',
      },
    );
  }
  if (environment === 'live' && chain.testnet) {
    throw new ApiError(
      'FORBIDDEN',
      `A live key may not prepare on the test network "${chain.key}"; use a test key.`,
      {
        parameter: 'chain',
      },
    );
  }
}

function resolveTokens(
  ctx: GraphQLContext,
  chain: ChainConfig,
  input: PreparePositionInput,
): [TokenConfig, TokenConfig] {
  const supported = ctx.services.registry
    .depositTokens(chain.key)
    .map((t) => t.symbol)
    .join(', ');
  const issues: ErrorIssue[] = [];
  const found: (TokenConfig | undefined)[] = input.deposits.map((d) =>
    ctx.services.registry.depositToken(chain.key, d.symbol),
  );
  found.forEach((token, i) => {
    if (!token)
      issues.push({ type: 'UNSUPPORTED_TOKEN', expected: supported, actual: input.deposits[i]!.symbol });
  });
  if (issues.length > 0) {
    const first = found.findIndex((t) => !t);
    throw new ApiError(
      'UNPROCESSABLE',
      `Token "${input.deposits[first]!.symbol}" is not supported on chain "${chain.key}". Supported: ${supported}.`,
      { parameter: `deposits[${first}].symbol`, issues },
    );
  }
  const [a, b] = found as [TokenConfig, TokenConfig];
  if (a.address.toLowerCase() === b.address.toLowerCase()) {
    throw ApiError.invalid(
      'deposits[1].symbol',
      'deposits[1].symbol: the two deposits must be different tokens.',
    );
  }
  return [a, b];
}

function walletCheck(wallet: string): PreflightCheck {
  if (wallet.toLowerCase() === zeroAddress) {
    return { name: 'wallet_valid', ok: false, detail: 'The zero address cannot sign.' };
  }
  const mixedCase = wallet !== wallet.toLowerCase() && wallet.slice(2) !== wallet.slice(2).toUpperCase();
  if (mixedCase && checksumAddress(wallet as Address) !== wallet) {
    return {
      name: 'wallet_valid',
      ok: false,
      detail: 'The mixed-case address fails its EIP-55 checksum: check it for a typo before signing.',
    };
  }
  return { name: 'wallet_valid', ok: true, detail: `${getAddress(wallet)} signs every step.` };
}

/** Decodes our own strategy bytes back and checks the fee wiring PROTOCOL.md prescribes. */
function feesWiringCheck(params: {
  strategy: Hex;
  strategyHash: Hex;
  wallet: Address;
  program: Hex;
  feeReceiver: string;
  makerFee1e9: number;
}): PreflightCheck {
  const problems: string[] = [];
  const order = decodeStrategy(params.strategy);
  if (!order) problems.push('the strategy bytes do not decode as one canonical order');
  else {
    if (order.maker.toLowerCase() !== params.wallet.toLowerCase())
      problems.push('the order maker is not the wallet');
    if (!isPlainAquaOrder(order) || order.traits !== AQUA_TRAITS)
      problems.push('the order traits are not a plain Aqua order');
    if (order.data.toLowerCase() !== params.program.toLowerCase())
      problems.push('the order data is not the program');
  }
  if (strategyHashOf(params.strategy) !== params.strategyHash)
    problems.push('strategyHash is not keccak256(strategy)');
  const program = decodeProgram(params.program);
  const names = program.map((i) => i.name);
  const expected = [
    'AquaProtocolFeeAmountIn',
    ...(params.makerFee1e9 > 0 ? ['FlatFeeAmountIn'] : []),
    'XYCSwap',
    'Salt',
  ];
  if (names.join(',') !== expected.join(','))
    problems.push(`program is ${names.join(' → ')}, not ${expected.join(' → ')}`);
  const protocol = program[0];
  if (
    protocol?.name !== 'AquaProtocolFeeAmountIn' ||
    protocol.decoded?.fee1e9 !== PROTOCOL_FEE_1E9 ||
    protocol.decoded.receiver.toLowerCase() !== params.feeReceiver.toLowerCase()
  ) {
    problems.push("the first instruction is not the 0.05% protocol fee to the chain's fee receiver");
  }
  if (params.makerFee1e9 > 0) {
    const maker = program[1];
    if (maker?.name !== 'FlatFeeAmountIn' || maker.decoded?.fee1e9 !== params.makerFee1e9) {
      problems.push('the maker fee instruction does not carry makerFeeBps × 100');
    }
  }
  if (problems.length > 0) return { name: 'fees_wiring', ok: false, detail: problems.join('; ') };
  return {
    name: 'fees_wiring',
    ok: true,
    detail:
      `Decoded from the order: protocol fee ${PROTOCOL_FEE_1E9}/1e9 (0.05%) to the chain's fee receiver first` +
      (params.makerFee1e9 > 0 ? `, then the maker fee ${params.makerFee1e9}/1e9` : '') +
      ', then the x·y=k curve and the salt.',
  };
}

function human(amount: bigint, token: TokenConfig): string {
  return `${formatUnits(amount, token.decimals)} ${token.symbol}`;
}

/** Whole-token ratio amountA / amountB (decimals applied; equal to the raw ratio for equal decimals). */
function impliedRate(a: bigint, tokenA: TokenConfig, b: bigint, tokenB: TokenConfig): number | null {
  const scale = 10n ** 18n;
  const numerator = a * 10n ** BigInt(tokenB.decimals) * scale;
  const denominator = b * 10n ** BigInt(tokenA.decimals);
  if (denominator === 0n) return null;
  const rate = Number(numerator / denominator) / 1e18;
  return Number.isFinite(rate) ? rate : null;
}

function upstream(error: unknown, chainKey: string): ApiError {
  return (
    classifyRpcError(error, chainKey) ??
    new ApiError(
      'UPSTREAM_UNAVAILABLE',
      `A token contract of chain "${chainKey}" did not answer as expected.`,
      {
        cause: error,
      },
    )
  );
}

function replay(row: PositionRow, fingerprint: string): PreparedPosition {
  if (row.request_fingerprint !== fingerprint) {
    throw new ApiError(
      'UNPROCESSABLE',
      'This Idempotency-Key was already used by this key with a different request; use a new Idempotency-Key for a new position.',
      {
        parameter: 'Idempotency-Key',
        issues: [
          {
            type: 'IDEMPOTENCY_KEY_REUSED',
            expected: 'the body of the first request',
            actual: 'a different body',
          },
        ],
      },
    );
  }
  return { ...(row.payload as PreparedPayload), metadata: row.metadata, replayed: true };
}

/**
 * POST /v1/positions. A repeat with the same key and Idempotency-Key returns the stored payload as it
 * was prepared (no chain reads: its approvals and preflight are those of the first call), so the
 * answer, including strategyHash, is identical; a different body with that Idempotency-Key is 422.
 */
export async function preparePosition(
  ctx: GraphQLContext,
  input: PreparePositionInput,
): Promise<PreparedPosition> {
  const key = ctx.apiKey;
  if (!key) throw new ApiError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
  assertInput(input);
  const { registry, db } = ctx.services;
  const chain = registry.require(input.chain, 'chain');
  assertEnvironment(key.environment, chain);
  const [first, second] = resolveTokens(ctx, chain, input);
  const amounts = new Map([
    [first.address.toLowerCase(), BigInt(input.deposits[0]!.amount)],
    [second.address.toLowerCase(), BigInt(input.deposits[1]!.amount)],
  ]);
  const [tokenA, tokenB] =
    first.address.toLowerCase() < second.address.toLowerCase() ? [first, second] : [second, first];
  const amountA = amounts.get(tokenA.address.toLowerCase())!;
  const amountB = amounts.get(tokenB.address.toLowerCase())!;
  const makerFeeBps = input.makerFeeBps ?? 0;
  const includeApprovals = input.includeApprovals ?? true;
  const checkBalances = input.checkBalances ?? false;
  const metadata = input.metadata ?? null;
  const wallet = getAddress(input.wallet);
  const idempotencyKey = ctx.idempotencyKey;
  const fingerprint = fingerprintOf({
    chain: chain.key,
    wallet,
    tokens: [
      { address: tokenA.address, amount: amountA },
      { address: tokenB.address, amount: amountB },
    ],
    makerFeeBps,
    includeApprovals,
    checkBalances,
    metadata,
  });

  if (idempotencyKey !== null) {
    const existing = await findPositionByIdempotencyKey(db, key.keyId, idempotencyKey);
    if (existing) return replay(existing, fingerprint);
  }

  // The order: protocol fee → maker fee (if any) → curve → salt (PROTOCOL.md canonical order).
  const makerFee1e9 = apiFeeToOnChain(makerFeeBps);
  const program = buildProgram([
    aquaProtocolFeeAmountIn(PROTOCOL_FEE_1E9, chain.feeReceiver as Address),
    ...(makerFee1e9 > 0 ? [flatFeeAmountIn(makerFee1e9)] : []),
    xycSwap(),
    saltInstruction(positionSalt(key.keyId, idempotencyKey)),
  ]);
  const strategy = encodeStrategy({ maker: wallet, traits: AQUA_TRAITS, data: program });
  const strategyHash = strategyHashOf(strategy);
  const aqua = getAddress(chain.aqua);
  const router = getAddress(chain.router);

  // Allowances (and balances) of both tokens: one multicall, one RPC round trip.
  const read = (token: TokenConfig, functionName: 'allowance' | 'balanceOf', args: readonly Address[]) =>
    ctx.loaders.multicall.load({
      chain: chain.key,
      address: token.address as Address,
      abi: erc20Abi as Abi,
      functionName,
      args,
    }) as Promise<bigint>;
  let allowanceA: bigint;
  let allowanceB: bigint;
  let balances: [bigint, bigint] | null = null;
  try {
    const reads = [read(tokenA, 'allowance', [wallet, aqua]), read(tokenB, 'allowance', [wallet, aqua])];
    if (checkBalances) reads.push(read(tokenA, 'balanceOf', [wallet]), read(tokenB, 'balanceOf', [wallet]));
    const values = await Promise.all(reads);
    [allowanceA, allowanceB] = values as [bigint, bigint];
    if (checkBalances) balances = [values[2]!, values[3]!];
  } catch (error) {
    throw upstream(error, chain.key);
  }

  const sides = [
    { token: tokenA, amount: amountA, allowance: allowanceA, balance: balances?.[0], suffix: 'a' },
    { token: tokenB, amount: amountB, allowance: allowanceB, balance: balances?.[1], suffix: 'b' },
  ] as const;
  const transactions: PreparedTransaction[] = [];
  /** The next step, numbered in order; none carries value. */
  const step = (purpose: PreparedTransaction['purpose'], to: string, data: string, description: string) =>
    transactions.push({ step: transactions.length + 1, purpose, to, value: '0', data, description });
  if (includeApprovals) {
    for (const side of sides) {
      if (side.allowance >= side.amount) continue;
      const token = getAddress(side.token.address);
      // USDT (and tokens like it) refuse to change an allowance that is not zero to another value that
      // is not zero: a short allowance goes to zero first, on every token (one more step, never a revert).
      if (side.allowance > 0n) {
        step(
          'approve',
          token,
          approveCalldata(aqua, 0n),
          `Reset this wallet's allowance for Aqua (${aqua}) from ${human(side.allowance, side.token)} to 0 ` +
            `before raising it: tokens such as USDT refuse to change an allowance that is not zero.`,
        );
      }
      step(
        'approve',
        token,
        approveCalldata(aqua, side.amount),
        `Approve Aqua (${aqua}) to use up to ${human(side.amount, side.token)} of this wallet. ` +
          `The current allowance (${human(side.allowance, side.token)}) is short. Tokens stay in the wallet; ` +
          'Aqua moves them only when a taker trades against the position.',
      );
    }
  }
  step(
    'ship',
    aqua,
    shipCalldata({
      app: router,
      strategy,
      tokens: [tokenA.address as Address, tokenB.address as Address],
      amounts: [amountA, amountB],
    }),
    `Ship the position to Aqua on ${chain.name ?? chain.key}: an x·y=k pool of ${human(amountA, tokenA)} and ` +
      `${human(amountB, tokenB)} on the SwapVM router ${router}. The signed order embeds the ` +
      `${feePercent(PROTOCOL_FEE_BPS)}% protocol fee${makerFeeBps > 0 ? ` and your ${feePercent(makerFeeBps)}% maker fee` : ''}. ` +
      `Its strategy hash is ${strategyHash}.`,
  );

  const checks: PreflightCheck[] = [
    walletCheck(input.wallet),
    {
      name: 'tokens_sorted',
      ok: tokenA.address.toLowerCase() < tokenB.address.toLowerCase(),
      detail: `tokenA ${tokenA.symbol} (${getAddress(tokenA.address)}) has the lower address.`,
    },
    {
      name: 'both_amounts_positive',
      ok: amountA > 0n && amountB > 0n,
      detail: 'x·y=k needs a balance on both sides.',
    },
    feesWiringCheck({ strategy, strategyHash, wallet, program, feeReceiver: chain.feeReceiver, makerFee1e9 }),
  ];
  const issues: PreflightIssue[] = [];
  for (const side of sides) {
    if (includeApprovals || side.allowance >= side.amount) continue;
    checks.push({
      name: `allowance_${side.suffix}`,
      ok: false,
      detail: `${side.token.symbol}: allowance ${human(side.allowance, side.token)} is below ${human(side.amount, side.token)}; ship reverts until Aqua is approved (includeApprovals=false left the step out).`,
    });
    issues.push({
      type: 'INSUFFICIENT_ALLOWANCE',
      expected: side.amount.toString(),
      actual: side.allowance.toString(),
      spender: aqua,
      token: getAddress(side.token.address),
    });
  }
  for (const side of sides) {
    if (side.balance === undefined) continue;
    const ok = side.balance >= side.amount;
    checks.push({
      name: `balance_${side.suffix}`,
      ok,
      detail: `${side.token.symbol}: balance ${human(side.balance, side.token)} ${ok ? 'covers' : 'is below'} ${human(side.amount, side.token)}.`,
    });
    if (!ok) {
      issues.push({
        type: 'INSUFFICIENT_BALANCE',
        expected: side.amount.toString(),
        actual: side.balance.toString(),
        token: getAddress(side.token.address),
      });
    }
  }

  const token = (t: TokenConfig, amount: bigint): PositionToken => ({
    symbol: t.symbol,
    address: getAddress(t.address),
    amount: amount.toString(),
    decimals: t.decimals,
  });
  const preparedAt = new Date();
  const payload: PreparedPayload = {
    status: 'prepared',
    chain: chain.key,
    chainId: chain.chainId,
    wallet,
    strategyHash,
    transactions,
    fee: feeBreakdown(makerFeeBps),
    position: {
      tokenA: token(tokenA, amountA),
      tokenB: token(tokenB, amountB),
      impliedRate: impliedRate(amountA, tokenA, amountB, tokenB),
      programBytes: (program.length - 2) / 2,
    },
    preflight: { status: checks.every((c) => c.ok) ? 'ready' : 'review', checks, issues },
    idempotent: idempotencyKey !== null,
    preparedAt: preparedAt.toISOString(),
  };

  const inserted = await insertPosition(db, {
    strategy_hash: strategyHash,
    key_id: key.keyId,
    idempotency_key: idempotencyKey,
    chain_key: chain.key,
    chain_id: chain.chainId,
    wallet: wallet.toLowerCase(),
    token_a: tokenA.address.toLowerCase(),
    token_b: tokenB.address.toLowerCase(),
    amount_a: amountA.toString(),
    amount_b: amountB.toString(),
    maker_fee_bps: makerFeeBps,
    protocol_fee_bps: PROTOCOL_FEE_BPS,
    request_fingerprint: fingerprint,
    payload,
    metadata,
    created_at: preparedAt,
  });
  if (inserted) return { ...payload, metadata, replayed: false };
  // Another call with the same (key, Idempotency-Key) won the insert: answer with its payload.
  const winner =
    idempotencyKey === null ? undefined : await findPositionByIdempotencyKey(db, key.keyId, idempotencyKey);
  if (!winner) throw new ApiError('INTERNAL', 'The prepared position collided with another one; retry.');
  return replay(winner, fingerprint);
}

/** The 404 of GET /v1/positions/{id}: one message whether the position is missing or another key's. */
export const POSITION_NOT_FOUND = 'No position with this id was prepared by this key.';

/** GET /v1/positions/{positionId}: what the service has observed of a position of the calling key. */
export async function positionStatus(ctx: GraphQLContext, positionId: string): Promise<PositionStatus> {
  const key = ctx.apiKey;
  if (!key) throw new ApiError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
  const id = positionId.toLowerCase();
  if (!POSITION_ID.test(id)) {
    throw ApiError.invalid('positionId', 'positionId must match ^0x[0-9a-fA-F]{64}$.');
  }
  const row = await findPositionStatus(ctx.services.db, key.keyId, id);
  if (!row) throw ApiError.notFound(POSITION_NOT_FOUND);
  const filled = row.observed && (row.first_volume_seen_at !== null || (row.volume_usd ?? 0) > 0);
  const tokenOf = (address: string, amount: string, prepared?: { symbol?: string; decimals?: number }) => ({
    symbol: prepared?.symbol ?? ctx.services.registry.tokenByAddress(row.chain_key, address)?.symbol ?? null,
    address: getAddress(address),
    amount,
    decimals:
      prepared?.decimals ?? ctx.services.registry.tokenByAddress(row.chain_key, address)?.decimals ?? null,
  });
  return {
    positionId: row.strategy_hash,
    strategyHash: row.strategy_hash,
    status: filled ? 'filled' : row.observed ? 'shipped' : 'prepared',
    chain: row.chain_key,
    chainId: row.chain_id,
    wallet: getAddress(row.wallet),
    tokenA: tokenOf(row.token_a, row.amount_a, row.position?.tokenA),
    tokenB: tokenOf(row.token_b, row.amount_b, row.position?.tokenB),
    makerFeeBps: row.maker_fee_bps,
    protocolFeeBps: row.protocol_fee_bps,
    observedOnChain: row.observed,
    volumeUsd: row.observed ? (row.volume_usd ?? 0) : null,
    preparedAt: row.created_at,
    firstSeenOnChainAt: row.first_seen_at,
    firstSeenFilledAt: filled ? (row.first_volume_seen_at ?? null) : null,
    signer: SIGNER_NOTE,
    checkedAt: new Date().toISOString(),
    timestampsMeaning: TIMESTAMPS_MEANING,
  };
}
