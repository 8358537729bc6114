// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAqua} from "./IAqua.sol";
import {SafeTokenCalls} from "./IERC20.sol";

/// Devnet router compatible with the 1inch Aqua SwapVM router (PROTOCOL.md) for the instructions
/// Deadline (13), XYCSwap (17), Salt (20), FlatFeeAmountIn (21) and AquaProtocolFeeAmountIn (28),
/// exactIn only. Any other opcode reverts with UnknownOpcode.
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

    /// Result of running the program over the strategy's virtual balances.
    struct Execution {
        uint256 amountIn;
        uint256 amountOut;
    }

    uint8 internal constant OP_DEADLINE = 13;
    uint8 internal constant OP_XYC_SWAP = 17;
    uint8 internal constant OP_SALT = 20;
    uint8 internal constant OP_FLAT_FEE_AMOUNT_IN = 21;
    uint8 internal constant OP_AQUA_PROTOCOL_FEE_AMOUNT_IN = 28;

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

    event Swapped(
        bytes32 orderHash,
        address maker,
        address taker,
        address tokenIn,
        address tokenOut,
        uint256 amountIn,
        uint256 amountOut
    );

    error UnknownOpcode(uint8 opcode);
    error TruncatedProgram(uint256 pc);
    error InvalidInstructionArgs(uint8 opcode, uint256 argsLength);
    error DeadlineReached(uint256 deadline);
    error FeeTooHigh(uint256 fee);
    error FeeAfterSwap(uint8 opcode);
    error DuplicateSwap();
    error DuplicateProtocolFee();
    error XYCSwapRequiresBothBalancesNonZero(uint256 balanceIn, uint256 balanceOut);
    // The reference TakerTraitsLib errors, with its argument lists (PROTOCOL.md).
    error TakerTraitsMissingTraits();
    error TakerTraitsMissingHookData();
    error TakerTraitsAmountOutMustBeGreaterThanZero(uint256 amountOut);
    error TakerTraitsInsufficientMinOutputAmount(uint256 amountOut, uint256 amountOutMin);
    error TakerTraitsNonExactThresholdAmountOut(uint256 amountOut, uint256 amountThreshold);
    error TakerTraitsDeadlineExpired();
    error ExactOutNotSupported();
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
        Execution memory ex = _execute(order, orderHash, tokenIn, tokenOut, amount, taker, false);
        return (ex.amountIn, ex.amountOut, orderHash);
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
        Execution memory ex = _execute(order, orderHash, tokenIn, tokenOut, amount, taker, true);

        // 2. tokenOut from the maker's wallet to the taker (or the taker's `to`).
        AQUA.pull(order.maker, orderHash, tokenOut, ex.amountOut, taker.to == address(0) ? msg.sender : taker.to);
        // 3. The taker's gross tokenIn goes to the maker and is accounted in Aqua.
        SafeTokenCalls.safeTransferFrom(tokenIn, msg.sender, address(this), ex.amountIn);
        SafeTokenCalls.forceApprove(tokenIn, address(AQUA), ex.amountIn);
        AQUA.push(order.maker, address(this), orderHash, tokenIn, ex.amountIn);

        emit Swapped(orderHash, order.maker, msg.sender, tokenIn, tokenOut, ex.amountIn, ex.amountOut);
        _locked = 0;
        return (ex.amountIn, ex.amountOut, orderHash);
    }

    /// Registers of one run of a program.
    struct Run {
        address maker;
        bytes32 orderHash;
        address tokenIn;
        bool isSwap;
        uint256 balanceIn;
        uint256 balanceOut;
        uint256 remaining; // the part of amountIn that reaches the curve
        uint256 amountOut;
        bool swapped;
        bool hasProtocolFee;
    }

    /// Runs the program, then validates the result against the taker's traits in the reference order:
    /// amountOut > 0, the taker's deadline, the threshold (strict or minimum).
    function _execute(
        Order calldata order,
        bytes32 orderHash,
        address tokenIn,
        address tokenOut,
        uint256 amount,
        TakerTraits memory taker,
        bool isSwap
    ) internal returns (Execution memory ex) {
        if (tokenIn == tokenOut) revert SameTokens(tokenIn);
        if (taker.flags & TAKER_EXACT_IN == 0) revert ExactOutNotSupported();
        _checkMakerTraits(order);

        Run memory run;
        run.maker = order.maker;
        run.orderHash = orderHash;
        run.tokenIn = tokenIn;
        run.isSwap = isSwap;
        run.remaining = amount;
        // Reverts SafeBalancesForTokenNotInActiveStrategy(maker, app, hash, token) when not active.
        (run.balanceIn, run.balanceOut) = AQUA.safeBalances(order.maker, address(this), orderHash, tokenIn, tokenOut);

        bytes calldata program = order.data;
        uint256 pc = 0;
        while (pc < program.length) {
            if (program.length - pc < 2) revert TruncatedProgram(pc);
            uint256 end = pc + 2 + uint8(program[pc + 1]);
            if (end > program.length) revert TruncatedProgram(pc);
            _step(run, uint8(program[pc]), program[pc + 2:end]);
            pc = end;
        }

        ex.amountIn = amount;
        ex.amountOut = run.amountOut;
        if (ex.amountOut == 0) revert TakerTraitsAmountOutMustBeGreaterThanZero(ex.amountOut);
        if (taker.deadline != 0 && block.timestamp > taker.deadline) revert TakerTraitsDeadlineExpired();
        if (taker.hasThreshold) {
            if (taker.flags & TAKER_STRICT_THRESHOLD != 0) {
                if (ex.amountOut != taker.threshold) {
                    revert TakerTraitsNonExactThresholdAmountOut(ex.amountOut, taker.threshold);
                }
            } else if (ex.amountOut < taker.threshold) {
                revert TakerTraitsInsufficientMinOutputAmount(ex.amountOut, taker.threshold);
            }
        }
    }

    function _step(Run memory run, uint8 opcode, bytes calldata args) internal {
        if (opcode == OP_DEADLINE) {
            if (args.length != 5) revert InvalidInstructionArgs(opcode, args.length);
            uint256 deadline = uint40(bytes5(args));
            if (block.timestamp > deadline) revert DeadlineReached(deadline);
        } else if (opcode == OP_XYC_SWAP) {
            if (run.swapped) revert DuplicateSwap();
            if (run.balanceIn == 0 || run.balanceOut == 0) {
                revert XYCSwapRequiresBothBalancesNonZero(run.balanceIn, run.balanceOut);
            }
            run.amountOut = (run.remaining * run.balanceOut) / (run.balanceIn + run.remaining);
            run.swapped = true;
        } else if (opcode == OP_SALT) {
            // no-op: only makes the strategy bytes unique
        } else if (opcode == OP_FLAT_FEE_AMOUNT_IN) {
            if (args.length != 4) revert InvalidInstructionArgs(opcode, args.length);
            if (run.swapped) revert FeeAfterSwap(opcode);
            uint256 fee = uint32(bytes4(args));
            if (fee > FEE_SCALE) revert FeeTooHigh(fee);
            // The maker's fee rounds up; it stays in the pool.
            run.remaining -= (run.remaining * fee + FEE_SCALE - 1) / FEE_SCALE;
        } else if (opcode == OP_AQUA_PROTOCOL_FEE_AMOUNT_IN) {
            if (args.length != 24) revert InvalidInstructionArgs(opcode, args.length);
            if (run.swapped) revert FeeAfterSwap(opcode);
            if (run.hasProtocolFee) revert DuplicateProtocolFee();
            uint256 fee = uint32(bytes4(args[0:4]));
            if (fee > FEE_SCALE) revert FeeTooHigh(fee);
            // The protocol fee rounds down; on swap it leaves the pool now, before the taker's tokens
            // arrive (a fee of 0 is still pulled). Aqua's checked subtraction: Panic(0x11) when short.
            uint256 protocolFee = (run.remaining * fee) / FEE_SCALE;
            run.remaining -= protocolFee;
            run.hasProtocolFee = true;
            if (run.isSwap) {
                AQUA.pull(run.maker, run.orderHash, run.tokenIn, protocolFee, address(bytes20(args[4:24])));
            }
        } else {
            revert UnknownOpcode(opcode);
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
