/**
 * Decoding of revert data from the router (and what it calls: Aqua, the tokens) into a readable
 * reason. The custom errors are those of the Aqua SwapVM router family (PROTOCOL.md) as the devnet
 * contracts declare them; `Error(string)` and `Panic(uint256)` are decoded by viem itself. Anything
 * else comes back with its selector, never as a failure.
 */
import { type Abi, decodeErrorResult, type Hex, isHex } from 'viem';

const err = (name: string, ...inputs: [string, string][]) =>
  ({ type: 'error', name, inputs: inputs.map(([type, n]) => ({ type, name: n })) }) as const;

export const routerErrorsAbi = [
  // AquaSwapVMRouter
  err('UnknownOpcode', ['uint8', 'opcode']),
  err('TruncatedProgram', ['uint256', 'pc']),
  err('InvalidInstructionArgs', ['uint8', 'opcode'], ['uint256', 'argsLength']),
  err('DeadlineReached', ['uint256', 'deadline']),
  err('FeeTooHigh', ['uint256', 'fee']),
  err('FeeAfterSwap', ['uint8', 'opcode']),
  err('DuplicateSwap'),
  err('DuplicateProtocolFee'),
  err('XYCSwapRequiresBothBalancesNonZero', ['uint256', 'balanceIn'], ['uint256', 'balanceOut']),
  err('TakerTraitsAmountOutMustBeGreaterThanZero'),
  err('TakerTraitsInsufficientMinOutputAmount', ['uint256', 'amountOut'], ['uint256', 'threshold']),
  err('TakerTraitsDeadlineExpired', ['uint256', 'deadline']),
  err('InvalidTakerTraits'),
  err('ExactOutNotSupported'),
  err('UnsupportedTakerFlags', ['uint256', 'flags']),
  err('OnlyAquaOrdersSupported'),
  err('UnwrapWethNotSupported'),
  err('UnsupportedReceiver', ['address', 'receiver']),
  err('UnsupportedMakerTraits', ['uint256', 'traits']),
  err('SameTokens', ['address', 'token']),
  err('StrategyNotActive', ['address', 'token']),
  err('Reentrancy'),
  // Aqua
  err('StrategiesMustBeImmutable', ['address', 'app'], ['bytes32', 'strategyHash']),
  err('PullExceedsBalance', ['address', 'token'], ['uint256', 'balance'], ['uint256', 'amount']),
  err(
    'PushToNonActiveStrategyPrevented',
    ['address', 'maker'],
    ['address', 'app'],
    ['bytes32', 'strategyHash'],
    ['address', 'token'],
  ),
  err('SafeBalancesForTokenNotInActiveStrategy', ['address', 'token']),
  // Tokens
  err('TokenCallFailed', ['address', 'token'], ['bytes4', 'selector']),
  err('ERC20InsufficientBalance', ['address', 'sender'], ['uint256', 'balance'], ['uint256', 'needed']),
  err('ERC20InsufficientAllowance', ['address', 'spender'], ['uint256', 'allowance'], ['uint256', 'needed']),
] as const satisfies Abi;

/** Why a quote that reverted cannot be served, in words a taker can act on. */
const HINTS: Record<string, string> = {
  TakerTraitsAmountOutMustBeGreaterThanZero: 'the output rounds to 0; quote a larger amount',
  XYCSwapRequiresBothBalancesNonZero: 'the strategy has an empty side',
  StrategyNotActive: 'the strategy is not active on chain (docked or never shipped)',
  DeadlineReached: "the strategy's deadline has passed",
  PullExceedsBalance: 'the strategy balance is too low for this amount',
  ERC20InsufficientBalance: "the maker's wallet balance is too low for this amount",
  UnknownOpcode: 'the strategy program uses an instruction the router does not support',
};

const PANICS: Record<string, string> = {
  '1': 'assertion failed',
  '17': 'arithmetic overflow (the amount is too large)',
  '18': 'division by zero',
  '50': 'array index out of bounds',
};

export interface DecodedRevert {
  /** The custom error's name, `Error`/`Panic` for the builtins, null when the selector is unknown. */
  name: string | null;
  /** Signature-like text, e.g. `StrategyNotActive(0xabc…)` or `Panic(17)`, or the raw selector. */
  reason: string;
  /** Plain-language explanation when one is known. */
  hint: string | null;
  data: Hex;
}

function formatArg(value: unknown): string {
  return typeof value === 'bigint' ? value.toString() : String(value);
}

export function decodeRevert(data: Hex | undefined): DecodedRevert {
  const raw: Hex = data && isHex(data, { strict: true }) ? data : '0x';
  if (raw.length < 10) return { name: null, reason: 'reverted without a reason', hint: null, data: raw };
  try {
    const decoded = decodeErrorResult({ abi: routerErrorsAbi, data: raw });
    const args = (decoded.args ?? []) as readonly unknown[];
    const name = decoded.errorName;
    const reason = `${name}(${args.map(formatArg).join(', ')})`;
    let hint = HINTS[name] ?? null;
    if (name === 'Panic') hint = PANICS[formatArg(args[0])] ?? 'the router panicked';
    if (name === 'Error') hint = formatArg(args[0]);
    return { name, reason, hint, data: raw };
  } catch {
    return {
      name: null,
      reason: `unrecognised revert (selector ${raw.slice(0, 10)})`,
      hint: null,
      data: raw,
    };
  }
}
