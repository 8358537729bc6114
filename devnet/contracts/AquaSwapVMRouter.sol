// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAqua} from "./IAqua.sol";
import {SafeTokenCalls} from "./IERC20.sol";
import {CurveMath} from "./CurveMath.sol";

/// Devnet router compatible with the 1inch Aqua SwapVM router v1.0.1 (PROTOCOL.md) over its Aqua
/// opcode table: Jump (10), Deadline (13), XYCSwap (17), XYCConcentrateGrowLiquidity2D (18), Decay (19),
/// Salt (20), FlatFeeAmountIn (21), AquaProtocolFeeAmountIn (28) and PeggedSwapGrowPriceRange2D (31),
/// exactIn and exactOut. Any other opcode reverts with UnknownOpcode.
///
/// As on the reference, the fees, Concentrate and Decay wrap the rest of the program: they adjust the
/// registers, run everything after them, then finish; the curve fills the missing amount.
contract AquaSwapVMRouter {
    struct Order {
        address maker;
        uint256 traits;
        bytes data;
    }

    /// Parsed taker traits (22-byte header + slices).
    struct TakerTraits {
        uint256 flags;
        bool hasThreshold;
        uint256 threshold;
        address to;
        uint256 deadline;
    }

    /// The registers of one run of a program, and what it runs against.
    struct Run {
        address maker;
        bytes32 orderHash;
        address tokenIn;
        address tokenOut;
        bool isSwap;
        bool exactIn;
        uint256 balanceIn;
        uint256 balanceOut;
        uint256 amountIn;
        uint256 amountOut;
    }

    /// A Decay slot: an amount fading to 0 over `period` seconds from `time`.
    struct DecaySlot {
        uint216 offset;
        uint40 time;
    }

    uint8 internal constant OP_JUMP = 10;
    uint8 internal constant OP_DEADLINE = 13;
    uint8 internal constant OP_XYC_SWAP = 17;
    uint8 internal constant OP_XYC_CONCENTRATE = 18;
    uint8 internal constant OP_DECAY = 19;
    uint8 internal constant OP_SALT = 20;
    uint8 internal constant OP_FLAT_FEE_AMOUNT_IN = 21;
    uint8 internal constant OP_AQUA_PROTOCOL_FEE_AMOUNT_IN = 28;
    uint8 internal constant OP_PEGGED_SWAP = 31;

    uint256 internal constant FEE_SCALE = 1e9;

    uint256 internal constant TRAIT_UNWRAP_WETH = 1 << 255;
    uint256 internal constant TRAIT_USE_AQUA = 1 << 254;
    /// Bits 160..253: hooks and other maker options this router does not implement.
    uint256 internal constant TRAIT_UNSUPPORTED_MASK = ((uint256(1) << 254) - 1) ^ ((uint256(1) << 160) - 1);

    uint256 internal constant TAKER_EXACT_IN = 0x01;
    uint256 internal constant TAKER_STRICT_THRESHOLD = 0x10;
    uint256 internal constant TAKER_USE_TRANSFER_FROM_AND_AQUA_PUSH = 0x40;
    uint256 internal constant TAKER_HEADER_LENGTH = 22;

    IAqua public immutable AQUA;

    uint256 private _locked;
    /// orderHash → token → side (true: added to balanceIn, false: taken from balanceOut) → slot.
    mapping(bytes32 => mapping(address => mapping(bool => DecaySlot))) private _decays;

    event Swapped(
        bytes32 orderHash,
        address maker,
        address taker,
        address tokenIn,
        address tokenOut,
        uint256 amountIn,
        uint256 amountOut
    );

    // The reference errors, with their argument lists (PROTOCOL.md).
    error TakerTraitsMissingTraits();
    error TakerTraitsMissingHookData();
    error TakerTraitsAmountOutMustBeGreaterThanZero(uint256 amountOut);
    error TakerTraitsInsufficientMinOutputAmount(uint256 amountOut, uint256 amountOutMin);
    error TakerTraitsExceedingMaxInputAmount(uint256 amountIn, uint256 amountInMax);
    error TakerTraitsNonExactThresholdAmountOut(uint256 amountOut, uint256 amountThreshold);
    error TakerTraitsNonExactThresholdAmountIn(uint256 amountIn, uint256 amountThreshold);
    error TakerTraitsDeadlineExpired();
    error MakerTraitsZeroAmountInNotAllowed();
    error RunLoopExcessiveCall(uint256 pc, uint256 length);
    error ControlsMissingDeadlineArg();
    error DeadlineReached(address taker, uint256 deadline);
    error FeeShouldBeAppliedBeforeSwapAmountsComputation();
    error ConcentrateShouldBeUsedBeforeSwapAmountsComputed(uint256 amountIn, uint256 amountOut);
    error ConcentrateMissingSqrtPriceMin();
    error ConcentrateMissingSqrtPriceMax();
    error DecayShouldBeCalledBeforeSwapAmountsComputation(uint256 amountIn, uint256 amountOut);
    error DecayMissingPeriodArg();
    error XYCSwapRecomputeDetected();
    error XYCSwapRequiresBothBalancesNonZero(uint256 balanceIn, uint256 balanceOut);
    error PeggedSwapRecomputeDetected();
    error PeggedSwapInvalidArgsLength(uint256 length);
    error PeggedSwapInvalidInitialBalances(uint256 x0, uint256 y0);
    error PeggedSwapInvalidLinearWidth(uint256 linearWidth);
    error PeggedSwapInvalidRates(uint256 rateLt, uint256 rateGt);
    error PeggedSwapBothBalancesZero();
    // The devnet router's own refusals: what it does not implement, and malformed programs.
    error UnknownOpcode(uint8 opcode);
    error TruncatedProgram(uint256 pc);
    error InvalidInstructionArgs(uint8 opcode, uint256 argsLength);
    error FeeTooHigh(uint256 fee);
    error UnsupportedTakerFlags(uint256 flags);
    error OnlyAquaOrdersSupported();
    error UnwrapWethNotSupported();
    error UnsupportedReceiver(address receiver);
    error UnsupportedMakerTraits(uint256 traits);
    error SameTokens(address token);
    error Reentrancy();

    constructor(IAqua aqua) {
        AQUA = aqua;
    }

    function hash(Order calldata order) public pure returns (bytes32) {
        return keccak256(abi.encode(order));
    }

    /// Call with eth_call. Not `view`: the program is the same one `swap` runs, which pulls the protocol fee.
    function quote(
        Order calldata order,
        address tokenIn,
        address tokenOut,
        uint256 amount,
        bytes calldata takerTraitsAndData
    ) external returns (uint256 amountIn, uint256 amountOut, bytes32 orderHash) {
        orderHash = hash(order);
        TakerTraits memory taker = _parseTakerTraits(takerTraitsAndData);
        Run memory run = _execute(order, orderHash, tokenIn, tokenOut, amount, taker, false);
        return (run.amountIn, run.amountOut, orderHash);
    }

    function swap(
        Order calldata order,
        address tokenIn,
        address tokenOut,
        uint256 amount,
        bytes calldata takerTraitsAndData
    ) external returns (uint256 amountIn, uint256 amountOut, bytes32 orderHash) {
        if (_locked != 0) revert Reentrancy();
        _locked = 1;

        orderHash = hash(order);
        TakerTraits memory taker = _parseTakerTraits(takerTraitsAndData);
        if (taker.flags & TAKER_USE_TRANSFER_FROM_AND_AQUA_PUSH == 0) revert UnsupportedTakerFlags(taker.flags);
        // 1. The protocol fee leaves the strategy's tokenIn balance while the program runs, before the
        //    taker's tokens arrive (Aqua's checked subtraction: Panic(0x11) when the balance is short).
        Run memory run = _execute(order, orderHash, tokenIn, tokenOut, amount, taker, true);

        // 2. tokenOut from the maker's wallet to the taker (or the taker's `to`).
        AQUA.pull(order.maker, orderHash, tokenOut, run.amountOut, taker.to == address(0) ? msg.sender : taker.to);
        // 3. The taker's gross tokenIn goes to the maker and is accounted in Aqua.
        SafeTokenCalls.safeTransferFrom(tokenIn, msg.sender, address(this), run.amountIn);
        SafeTokenCalls.forceApprove(tokenIn, address(AQUA), run.amountIn);
        AQUA.push(order.maker, address(this), orderHash, tokenIn, run.amountIn);

        emit Swapped(orderHash, order.maker, msg.sender, tokenIn, tokenOut, run.amountIn, run.amountOut);
        _locked = 0;
        return (run.amountIn, run.amountOut, orderHash);
    }

    /// Runs the program, then validates the result in the reference order: amountIn > 0, amountOut > 0,
    /// the taker's deadline, the threshold (strict, or a minimum output / maximum input).
    function _execute(
        Order calldata order,
        bytes32 orderHash,
        address tokenIn,
        address tokenOut,
        uint256 amount,
        TakerTraits memory taker,
        bool isSwap
    ) internal returns (Run memory run) {
        if (tokenIn == tokenOut) revert SameTokens(tokenIn);
        _checkMakerTraits(order);

        run.maker = order.maker;
        run.orderHash = orderHash;
        run.tokenIn = tokenIn;
        run.tokenOut = tokenOut;
        run.isSwap = isSwap;
        run.exactIn = taker.flags & TAKER_EXACT_IN != 0;
        if (run.exactIn) run.amountIn = amount;
        else run.amountOut = amount;
        // Reverts SafeBalancesForTokenNotInActiveStrategy(maker, app, hash, token) when not active.
        (run.balanceIn, run.balanceOut) = AQUA.safeBalances(order.maker, address(this), orderHash, tokenIn, tokenOut);

        _runFrom(run, order.data, 0);

        if (run.amountIn == 0) revert MakerTraitsZeroAmountInNotAllowed();
        if (run.amountOut == 0) revert TakerTraitsAmountOutMustBeGreaterThanZero(run.amountOut);
        if (taker.deadline != 0 && block.timestamp > taker.deadline) revert TakerTraitsDeadlineExpired();
        if (taker.hasThreshold) _checkThreshold(run, taker);
    }

    function _checkThreshold(Run memory run, TakerTraits memory taker) internal pure {
        bool strict = taker.flags & TAKER_STRICT_THRESHOLD != 0;
        if (run.exactIn) {
            if (strict && run.amountOut != taker.threshold) {
                revert TakerTraitsNonExactThresholdAmountOut(run.amountOut, taker.threshold);
            }
            if (!strict && run.amountOut < taker.threshold) {
                revert TakerTraitsInsufficientMinOutputAmount(run.amountOut, taker.threshold);
            }
        } else {
            if (strict && run.amountIn != taker.threshold) {
                revert TakerTraitsNonExactThresholdAmountIn(run.amountIn, taker.threshold);
            }
            if (!strict && run.amountIn > taker.threshold) {
                revert TakerTraitsExceedingMaxInputAmount(run.amountIn, taker.threshold);
            }
        }
    }

    /// Runs the instructions from `pc` to the end. A wrapping instruction runs the rest inside itself,
    /// so this returns once it has.
    function _runFrom(Run memory run, bytes calldata program, uint256 pc) internal {
        while (pc < program.length) {
            if (program.length - pc < 2) revert TruncatedProgram(pc);
            uint256 next = pc + 2 + uint8(program[pc + 1]);
            if (next > program.length) revert TruncatedProgram(pc);
            uint8 opcode = uint8(program[pc]);
            bytes calldata args = program[pc + 2:next];
            if (opcode == OP_JUMP) {
                if (args.length < 2) revert InvalidInstructionArgs(opcode, args.length);
                pc = uint16(bytes2(args[0:2]));
            } else if (opcode == OP_DEADLINE) {
                if (args.length < 5) revert ControlsMissingDeadlineArg();
                uint256 deadline = uint40(bytes5(args[0:5]));
                if (block.timestamp > deadline) revert DeadlineReached(msg.sender, deadline);
                pc = next;
            } else if (opcode == OP_SALT) {
                pc = next; // only makes the strategy bytes unique
            } else if (opcode == OP_XYC_SWAP) {
                _xycSwap(run);
                pc = next;
            } else if (opcode == OP_PEGGED_SWAP) {
                _peggedSwap(run, args);
                pc = next;
            } else if (opcode == OP_AQUA_PROTOCOL_FEE_AMOUNT_IN) {
                _protocolFee(run, args, program, next);
                return;
            } else if (opcode == OP_FLAT_FEE_AMOUNT_IN) {
                _flatFee(run, args, program, next);
                return;
            } else if (opcode == OP_XYC_CONCENTRATE) {
                _concentrate(run, args, program, next);
                return;
            } else if (opcode == OP_DECAY) {
                _decay(run, args, program, next);
                return;
            } else {
                revert UnknownOpcode(opcode);
            }
        }
    }

    /// What a wrapping instruction runs inside itself: everything after it, which must not be nothing.
    function _runRest(Run memory run, bytes calldata program, uint256 next) internal {
        if (next >= program.length) revert RunLoopExcessiveCall(next, program.length);
        _runFrom(run, program, next);
    }

    function _amountsComputed(Run memory run) internal pure returns (bool) {
        return run.amountIn != 0 && run.amountOut != 0;
    }

    /// Protocol fee: exactIn takes ⌊a·fee/1e9⌋ from the input before the rest; exactOut adds
    /// ⌊i·fee/(1e9−fee)⌋ after it. On swap that fee is pulled to the receiver from the maker's tokenIn.
    function _protocolFee(Run memory run, bytes calldata args, bytes calldata program, uint256 next) internal {
        if (args.length != 24) revert InvalidInstructionArgs(OP_AQUA_PROTOCOL_FEE_AMOUNT_IN, args.length);
        if (_amountsComputed(run)) revert FeeShouldBeAppliedBeforeSwapAmountsComputation();
        uint256 fee = uint32(bytes4(args[0:4]));
        if (fee > FEE_SCALE) revert FeeTooHigh(fee);
        address receiver = address(bytes20(args[4:24]));
        uint256 protocolFee;
        if (run.exactIn) {
            protocolFee = (run.amountIn * fee) / FEE_SCALE;
            run.amountIn -= protocolFee;
            _pullFee(run, protocolFee, receiver);
            _runRest(run, program, next);
            run.amountIn += protocolFee;
        } else {
            _runRest(run, program, next);
            protocolFee = (run.amountIn * fee) / (FEE_SCALE - fee);
            run.amountIn += protocolFee;
            _pullFee(run, protocolFee, receiver);
        }
    }

    /// A fee of 0 is pulled too (the reference does); Aqua's checked subtraction reverts when short.
    function _pullFee(Run memory run, uint256 protocolFee, address receiver) internal {
        if (run.isSwap) AQUA.pull(run.maker, run.orderHash, run.tokenIn, protocolFee, receiver);
    }

    /// The maker's fee, rounded up, stays in the pool: exactIn ⌈a·fee/1e9⌉ off the input, exactOut
    /// ⌈i·fee/(1e9−fee)⌉ onto it.
    function _flatFee(Run memory run, bytes calldata args, bytes calldata program, uint256 next) internal {
        if (args.length != 4) revert InvalidInstructionArgs(OP_FLAT_FEE_AMOUNT_IN, args.length);
        if (_amountsComputed(run)) revert FeeShouldBeAppliedBeforeSwapAmountsComputation();
        uint256 fee = uint32(bytes4(args[0:4]));
        if (fee > FEE_SCALE) revert FeeTooHigh(fee);
        if (run.exactIn) {
            uint256 flatFee = CurveMath.ceilDiv(run.amountIn * fee, FEE_SCALE);
            run.amountIn -= flatFee;
            _runRest(run, program, next);
            run.amountIn += flatFee;
        } else {
            _runRest(run, program, next);
            run.amountIn += CurveMath.ceilDiv(run.amountIn * fee, FEE_SCALE - fee);
        }
    }

    /// Concentrated liquidity: the rest runs on virtual balances, the real ones plus what the range's
    /// liquidity L adds (tokenIn side rounded up, tokenOut side down). L is recomputed from the real
    /// balances each call, so what stays in the pool grows it.
    function _concentrate(Run memory run, bytes calldata args, bytes calldata program, uint256 next) internal {
        if (args.length < 32) revert ConcentrateMissingSqrtPriceMin();
        if (args.length < 64) revert ConcentrateMissingSqrtPriceMax();
        if (_amountsComputed(run)) {
            revert ConcentrateShouldBeUsedBeforeSwapAmountsComputed(run.amountIn, run.amountOut);
        }
        uint256 sqrtMin = uint256(bytes32(args[0:32]));
        uint256 sqrtMax = uint256(bytes32(args[32:64]));
        bool inIsLt = run.tokenIn < run.tokenOut;
        (run.balanceIn, run.balanceOut) =
            CurveMath.concentratedBalances(run.balanceIn, run.balanceOut, inIsLt, sqrtMin, sqrtMax);
        _runRest(run, program, next);
    }

    /// Decay: the reverse of recent trades is priced as if they had not happened, fading linearly over
    /// `period` seconds. Slots live in this router's storage and change only on a swap.
    function _decay(Run memory run, bytes calldata args, bytes calldata program, uint256 next) internal {
        if (args.length < 2) revert DecayMissingPeriodArg();
        if (_amountsComputed(run)) {
            revert DecayShouldBeCalledBeforeSwapAmountsComputation(run.amountIn, run.amountOut);
        }
        uint256 period = uint16(bytes2(args[0:2]));
        run.balanceIn += _decayValue(run.orderHash, run.tokenIn, true, period);
        run.balanceOut -= _decayValue(run.orderHash, run.tokenOut, false, period);
        _runRest(run, program, next);
        if (run.isSwap) {
            uint256 inOffset = _decayValue(run.orderHash, run.tokenIn, false, period) + run.amountIn;
            uint256 outOffset = _decayValue(run.orderHash, run.tokenOut, true, period) + run.amountOut;
            _decays[run.orderHash][run.tokenIn][false] = DecaySlot(uint216(inOffset), uint40(block.timestamp));
            _decays[run.orderHash][run.tokenOut][true] = DecaySlot(uint216(outOffset), uint40(block.timestamp));
        }
    }

    function _decayValue(bytes32 orderHash, address token, bool side, uint256 period) internal view returns (uint256) {
        DecaySlot memory slot = _decays[orderHash][token][side];
        uint256 end = uint256(slot.time) + period;
        if (block.timestamp >= end) return 0;
        return (uint256(slot.offset) * (end - block.timestamp)) / period;
    }

    /// x·y = k over the balances the earlier instructions left: exactIn out = ⌊a·bo/(bi + a)⌋,
    /// exactOut in = ⌈o·bi/(bo − o)⌉.
    function _xycSwap(Run memory run) internal pure {
        if (_amountsComputed(run)) revert XYCSwapRecomputeDetected();
        if (run.balanceIn == 0 || run.balanceOut == 0) {
            revert XYCSwapRequiresBothBalancesNonZero(run.balanceIn, run.balanceOut);
        }
        if (run.exactIn) {
            run.amountOut = (run.amountIn * run.balanceOut) / (run.balanceIn + run.amountIn);
        } else {
            run.amountIn = CurveMath.ceilDiv(run.amountOut * run.balanceIn, run.balanceOut - run.amountOut);
        }
    }

    /// The pegged curve √u + √v + A(u + v) = C, flat near the peg (CurveMath.pegged*).
    function _peggedSwap(Run memory run, bytes calldata args) internal pure {
        if (_amountsComputed(run)) revert PeggedSwapRecomputeDetected();
        if (args.length < 160) revert PeggedSwapInvalidArgsLength(args.length);
        CurveMath.Peg memory peg = CurveMath.Peg({
            x0: uint256(bytes32(args[0:32])),
            y0: uint256(bytes32(args[32:64])),
            linearWidth: uint256(bytes32(args[64:96])),
            rateLt: uint256(bytes32(args[96:128])),
            rateGt: uint256(bytes32(args[128:160]))
        });
        if (peg.x0 == 0 || peg.y0 == 0) revert PeggedSwapInvalidInitialBalances(peg.x0, peg.y0);
        if (peg.linearWidth > CurveMath.MAX_LINEAR_WIDTH) revert PeggedSwapInvalidLinearWidth(peg.linearWidth);
        if (peg.rateLt == 0 || peg.rateGt == 0) revert PeggedSwapInvalidRates(peg.rateLt, peg.rateGt);
        if (run.balanceIn == 0 && run.balanceOut == 0) revert PeggedSwapBothBalancesZero();
        bool inIsLt = run.tokenIn < run.tokenOut;
        if (run.exactIn) {
            run.amountOut = CurveMath.peggedOut(peg, inIsLt, run.balanceIn, run.balanceOut, run.amountIn);
        } else {
            run.amountIn = CurveMath.peggedIn(peg, inIsLt, run.balanceIn, run.balanceOut, run.amountOut);
        }
    }

    function _checkMakerTraits(Order calldata order) internal pure {
        uint256 traits = order.traits;
        if (traits & TRAIT_USE_AQUA == 0) revert OnlyAquaOrdersSupported();
        if (traits & TRAIT_UNWRAP_WETH != 0) revert UnwrapWethNotSupported();
        if (traits & TRAIT_UNSUPPORTED_MASK != 0) revert UnsupportedMakerTraits(traits);
        address receiver = address(uint160(traits));
        if (receiver != address(0) && receiver != order.maker) revert UnsupportedReceiver(receiver);
    }

    /// Header: uint160 of ten uint16 slice end-offsets (slice k at bits 16k, relative to the end of the
    /// header), then uint16 flags. Slices: threshold, to, deadline, hook data x4, callback data x2,
    /// instruction args, then the signature (the rest). As on the reference, a slice is used only at its
    /// exact width (threshold 32 bytes, to 20, deadline 5) and is otherwise absent.
    function _parseTakerTraits(bytes calldata data) internal pure returns (TakerTraits memory taker) {
        if (data.length < TAKER_HEADER_LENGTH) revert TakerTraitsMissingTraits();
        uint256 offsets = uint160(bytes20(data[0:20]));
        taker.flags = uint16(bytes2(data[20:22]));
        bytes calldata body = data[TAKER_HEADER_LENGTH:];
        uint256 start = 0;
        for (uint256 k = 0; k < 3; k++) {
            uint256 end = (offsets >> (16 * k)) & 0xffff;
            if (end < start || end > body.length) revert TakerTraitsMissingHookData();
            bytes calldata slice = body[start:end];
            if (k == 0 && slice.length == 32) {
                taker.hasThreshold = true;
                taker.threshold = uint256(bytes32(slice));
            } else if (k == 1 && slice.length == 20) {
                taker.to = address(bytes20(slice));
            } else if (k == 2 && slice.length == 5) {
                taker.deadline = uint40(bytes5(slice));
            }
            start = end;
        }
    }
}
