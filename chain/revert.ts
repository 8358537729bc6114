/**
 * Decoding of revert data from the router (and what it calls: Aqua, the tokens) into a readable
 * reason. The custom errors are those of the reference Aqua and Aqua SwapVM router with the reference
 * argument lists (PROTOCOL.md "Reference revert encodings"; the devnet contracts raise the same bytes),
 * plus the devnet router's own refusals of what it does not implement. `Error(string)` and
 * `Panic(uint256)` are decoded by viem itself. Anything else comes back with its selector, never as a
 * failure.
 */
import { type Abi, decodeErrorResult, type Hex, isHex } from 'viem';

const err = (name: string, ...inputs: [string, string][]) =>
  ({ type: 'error', name, inputs: inputs.map(([type, n]) => ({ type, name: n })) }) as const;

export const routerErrorsAbi = [
  // Reference TakerTraitsLib (swap-vm)
  err('TakerTraitsAmountOutMustBeGreaterThanZero', ['uint256', 'amountOut']),
  err('TakerTraitsInsufficientMinOutputAmount', ['uint256', 'amountOut'], ['uint256', 'amountOutMin']),
  err('TakerTraitsNonExactThresholdAmountOut', ['uint256', 'amountOut'], ['uint256', 'amountThreshold']),
  err('TakerTraitsExceedingMaxInputAmount', ['uint256', 'amountIn'], ['uint256', 'amountInMax']),
  err('TakerTraitsNonExactThresholdAmountIn', ['uint256', 'amountIn'], ['uint256', 'amountThreshold']),
  err('TakerTraitsDeadlineExpired'),
  err('TakerTraitsMissingTraits'),
  err('TakerTraitsMissingHookData'),
  err('MakerTraitsZeroAmountInNotAllowed'),
  // Reference SwapVM run loop and Aqua instructions
  err('RunLoopExcessiveCall', ['uint256', 'pc'], ['uint256', 'length']),
  err('ControlsMissingDeadlineArg'),
  err('DeadlineReached', ['address', 'taker'], ['uint256', 'deadline']),
  err('FeeShouldBeAppliedBeforeSwapAmountsComputation'),
  err('ConcentrateShouldBeUsedBeforeSwapAmountsComputed', ['uint256', 'amountIn'], ['uint256', 'amountOut']),
  err('ConcentrateMissingSqrtPriceMin'),
  err('ConcentrateMissingSqrtPriceMax'),
  err('DecayShouldBeCalledBeforeSwapAmountsComputation', ['uint256', 'amountIn'], ['uint256', 'amountOut']),
  err('DecayMissingPeriodArg'),
  err('XYCSwapRecomputeDetected'),
  err('XYCSwapRequiresBothBalancesNonZero', ['uint256', 'balanceIn'], ['uint256', 'balanceOut']),
  err('PeggedSwapRecomputeDetected'),
  err('PeggedSwapInvalidArgsLength', ['uint256', 'length']),
  err('PeggedSwapInvalidInitialBalances', ['uint256', 'x0'], ['uint256', 'y0']),
  err('PeggedSwapInvalidLinearWidth', ['uint256', 'linearWidth']),
  err('PeggedSwapInvalidRates', ['uint256', 'rateLt'], ['uint256', 'rateGt']),
  err('PeggedSwapBothBalancesZero'),
  err('PeggedSwapMathInvalidInput'),
  // Reference Aqua
  err(
    'SafeBalancesForTokenNotInActiveStrategy',
    ['address', 'maker'],
    ['address', 'app'],
    ['bytes32', 'strategyHash'],
    ['address', 'token'],
  ),
  err('StrategiesMustBeImmutable', ['address', 'app'], ['bytes32', 'strategyHash']),
  err('DockingShouldCloseAllTokens', ['address', 'app'], ['bytes32', 'strategyHash']),
  err(
    'PushToNonActiveStrategyPrevented',
    ['address', 'maker'],
    ['address', 'app'],
    ['bytes32', 'strategyHash'],
    ['address', 'token'],
  ),
  err('MaxNumberOfTokensExceeded', ['uint256', 'tokensCount'], ['uint256', 'maxTokensCount']),
  err('SafeCastOverflowedUintDowncast', ['uint8', 'bits'], ['uint256', 'value']),
  // Reference SafeERC20 (1inch solidity-utils)
  err('SafeTransferFromFailed'),
  err('ForceApproveFailed'),
  // Devnet router: what it does not implement, and its program checks
  err('UnknownOpcode', ['uint8', 'opcode']),
  err('TruncatedProgram', ['uint256', 'pc']),
  err('InvalidInstructionArgs', ['uint8', 'opcode'], ['uint256', 'argsLength']),
  err('FeeTooHigh', ['uint256', 'fee']),
  err('UnsupportedTakerFlags', ['uint256', 'flags']),
  err('OnlyAquaOrdersSupported'),
  err('UnwrapWethNotSupported'),
  err('UnsupportedReceiver', ['address', 'receiver']),
  err('UnsupportedMakerTraits', ['uint256', 'traits']),
  err('SameTokens', ['address', 'token']),
  err('Reentrancy'),
  // Devnet tokens (reached only by a direct token call: Aqua and the router wrap them)
  err('ERC20InsufficientBalance', ['address', 'sender'], ['uint256', 'balance'], ['uint256', 'needed']),
  err('ERC20InsufficientAllowance', ['address', 'spender'], ['uint256', 'allowance'], ['uint256', 'needed']),
  err('ApprovalNotFromZero', ['address', 'spender'], ['uint256', 'allowance']),
] as const satisfies Abi;

/** What a revert means, in words a maker or taker can act on. */
const HINTS: Record<string, string> = {
  TakerTraitsAmountOutMustBeGreaterThanZero: 'the output rounds to 0; quote a larger amount',
  TakerTraitsInsufficientMinOutputAmount:
    'the output is below the minimum the taker accepts; the price moved past the slippage allowed, so quote again or allow more slippage',
  TakerTraitsNonExactThresholdAmountOut: 'the output differs from the exact amount the taker required',
  TakerTraitsDeadlineExpired: "the taker's deadline has passed; prepare the swap again",
  TakerTraitsMissingTraits: 'the taker data is shorter than its 22-byte header',
  TakerTraitsMissingHookData: 'the taker data is shorter than its slice offsets say',
  SafeBalancesForTokenNotInActiveStrategy:
    'the strategy is not active on chain for this token (never shipped, docked, or not one of its tokens)',
  StrategiesMustBeImmutable:
    'this strategy was already shipped (active or docked) or lists a token twice; a strategy is never shipped twice with the same bytes',
  DockingShouldCloseAllTokens: 'dock must list exactly the tokens the strategy was shipped with',
  PushToNonActiveStrategyPrevented: 'the strategy is not active on chain (docked or never shipped)',
  MaxNumberOfTokensExceeded: 'a strategy holds at most 254 tokens',
  SafeCastOverflowedUintDowncast: 'an amount is too large (virtual balances fit in uint248)',
  SafeTransferFromFailed:
    "a token transfer failed: the maker's allowance to Aqua or wallet balance is short (or the taker's allowance to the router or balance)",
  ForceApproveFailed: 'the token refused the router’s approval to Aqua',
  XYCSwapRequiresBothBalancesNonZero: 'the strategy has an empty side',
  DeadlineReached: "the strategy's deadline has passed",
  ERC20InsufficientBalance: 'the wallet balance is too low for this amount',
  ERC20InsufficientAllowance: 'the allowance is too low for this amount',
  ApprovalNotFromZero: 'this token only changes a set allowance to 0 first (approve 0, then the new value)',
  UnknownOpcode: 'the strategy program uses an instruction the router does not support',
  TakerTraitsExceedingMaxInputAmount: 'the input is above the maximum the taker accepts; quote again',
  MakerTraitsZeroAmountInNotAllowed: 'the input is 0; quote a larger amount',
  PeggedSwapMathInvalidInput:
    'the amount is past the end of the pegged curve: the strategy cannot pay that much out; quote a smaller amount',
  PeggedSwapBothBalancesZero: 'the strategy has nothing on either side',
  RunLoopExcessiveCall: 'the strategy program ends with a fee or liquidity instruction and no curve after it',
  FeeShouldBeAppliedBeforeSwapAmountsComputation: 'the strategy program places a fee after its curve',
};

const PANICS: Record<string, string> = {
  '1': 'assertion failed',
  '17': "arithmetic underflow or overflow: on a swap, the protocol fee is larger than the strategy's tokenIn balance, or the amount is too large",
  '18': 'division by zero',
  '50': 'array index out of bounds (fewer amounts than tokens?)',
};

export interface DecodedRevert {
  /** The custom error's name, `Error`/`Panic` for the builtins, null when the selector is unknown. */
  name: string | null;
  /** Signature-like text, e.g. `TakerTraitsDeadlineExpired()` or `Panic(17)`, or the raw selector. */
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
