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
        uint256 threshold;
        address to;
        uint256 deadline;
    }

    /// Result of running the program over the strategy's virtual balances.
    struct Execution {
        uint256 amountIn;
        uint256 amountOut;
        uint256 protocolFee;
        address protocolFeeReceiver;
        bool hasProtocolFee;
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
    uint256 internal constant TAKER_USE_TRANSFER_FROM_AND_AQUA_PUSH = 0x40;
    uint256 internal constant TAKER_HEADER_LENGTH = 22;

    uint8 internal constant DOCKED = 0xFF;

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
    error TakerTraitsAmountOutMustBeGreaterThanZero();
    error TakerTraitsInsufficientMinOutputAmount(uint256 amountOut, uint256 threshold);
    error TakerTraitsDeadlineExpired(uint256 deadline);
    error InvalidTakerTraits();
    error ExactOutNotSupported();
    error UnsupportedTakerFlags(uint256 flags);
    error OnlyAquaOrdersSupported();
    error UnwrapWethNotSupported();
    error UnsupportedReceiver(address receiver);
    error UnsupportedMakerTraits(uint256 traits);
    error SameTokens(address token);
    error StrategyNotActive(address token);
    error Reentrancy();

    constructor(IAqua aqua) {
        AQUA = aqua;
    }

    function hash(Order calldata order) public pure returns (bytes32) {
        return keccak256(abi.encode(order));
    }

    function quote(
        Order calldata order,
        address tokenIn,
        address tokenOut,
        uint256 amount,
        bytes calldata takerTraitsAndData
    ) external view returns (uint256 amountIn, uint256 amountOut, bytes32 orderHash) {
        orderHash = hash(order);
        TakerTraits memory taker = _parseTakerTraits(takerTraitsAndData);
        Execution memory ex = _execute(order, orderHash, tokenIn, tokenOut, amount, taker);
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
        Execution memory ex = _execute(order, orderHash, tokenIn, tokenOut, amount, taker);

        // 1. Protocol fee leaves the strategy's tokenIn balance before the taker's tokens arrive.
        if (ex.hasProtocolFee) {
            AQUA.pull(order.maker, orderHash, tokenIn, ex.protocolFee, ex.protocolFeeReceiver);
        }
        // 2. tokenOut from the maker's wallet to the taker (or the taker's `to`).
        AQUA.pull(order.maker, orderHash, tokenOut, ex.amountOut, taker.to == address(0) ? msg.sender : taker.to);
        // 3. The taker's gross tokenIn goes to the maker and is accounted in Aqua.
        SafeTokenCalls.safeTransferFrom(tokenIn, msg.sender, address(this), ex.amountIn);
        SafeTokenCalls.safeApprove(tokenIn, address(AQUA), ex.amountIn);
        AQUA.push(order.maker, address(this), orderHash, tokenIn, ex.amountIn);

        emit Swapped(orderHash, order.maker, msg.sender, tokenIn, tokenOut, ex.amountIn, ex.amountOut);
        _locked = 0;
        return (ex.amountIn, ex.amountOut, orderHash);
    }

    function _execute(
        Order calldata order,
        bytes32 orderHash,
        address tokenIn,
        address tokenOut,
        uint256 amount,
        TakerTraits memory taker
    ) internal view returns (Execution memory ex) {
        if (tokenIn == tokenOut) revert SameTokens(tokenIn);
        if (taker.flags & TAKER_EXACT_IN == 0) revert ExactOutNotSupported();
        if (taker.deadline != 0 && block.timestamp > taker.deadline) revert TakerTraitsDeadlineExpired(taker.deadline);
        _checkMakerTraits(order);

        uint256 balanceIn = _activeBalance(order.maker, orderHash, tokenIn);
        uint256 balanceOut = _activeBalance(order.maker, orderHash, tokenOut);

        ex.amountIn = amount;
        uint256 remaining = amount; // the part of amountIn that reaches the curve
        bool swapped = false;
        bytes calldata program = order.data;
        uint256 pc = 0;
        while (pc < program.length) {
            if (program.length - pc < 2) revert TruncatedProgram(pc);
            uint8 opcode = uint8(program[pc]);
            uint256 argsLength = uint8(program[pc + 1]);
            uint256 end = pc + 2 + argsLength;
            if (end > program.length) revert TruncatedProgram(pc);
            bytes calldata args = program[pc + 2:end];

            if (opcode == OP_DEADLINE) {
                if (argsLength != 5) revert InvalidInstructionArgs(opcode, argsLength);
                uint256 deadline = uint40(bytes5(args));
                if (block.timestamp > deadline) revert DeadlineReached(deadline);
            } else if (opcode == OP_XYC_SWAP) {
                if (swapped) revert DuplicateSwap();
                if (balanceIn == 0 || balanceOut == 0) {
                    revert XYCSwapRequiresBothBalancesNonZero(balanceIn, balanceOut);
                }
                ex.amountOut = (remaining * balanceOut) / (balanceIn + remaining);
                swapped = true;
            } else if (opcode == OP_SALT) {
                // no-op: only makes the strategy bytes unique
            } else if (opcode == OP_FLAT_FEE_AMOUNT_IN) {
                if (argsLength != 4) revert InvalidInstructionArgs(opcode, argsLength);
                if (swapped) revert FeeAfterSwap(opcode);
                uint256 fee = uint32(bytes4(args));
                if (fee > FEE_SCALE) revert FeeTooHigh(fee);
                // The maker's fee rounds up; it stays in the pool.
                remaining -= (remaining * fee + FEE_SCALE - 1) / FEE_SCALE;
            } else if (opcode == OP_AQUA_PROTOCOL_FEE_AMOUNT_IN) {
                if (argsLength != 24) revert InvalidInstructionArgs(opcode, argsLength);
                if (swapped) revert FeeAfterSwap(opcode);
                if (ex.hasProtocolFee) revert DuplicateProtocolFee();
                uint256 fee = uint32(bytes4(args[0:4]));
                if (fee > FEE_SCALE) revert FeeTooHigh(fee);
                // The protocol fee rounds down; it leaves the pool on swap.
                uint256 protocolFee = (remaining * fee) / FEE_SCALE;
                remaining -= protocolFee;
                ex.protocolFee = protocolFee;
                ex.protocolFeeReceiver = address(bytes20(args[4:24]));
                ex.hasProtocolFee = true;
            } else {
                revert UnknownOpcode(opcode);
            }
            pc = end;
        }

        if (ex.amountOut == 0) revert TakerTraitsAmountOutMustBeGreaterThanZero();
        if (ex.amountOut < taker.threshold) revert TakerTraitsInsufficientMinOutputAmount(ex.amountOut, taker.threshold);
    }

    function _checkMakerTraits(Order calldata order) internal pure {
        uint256 traits = order.traits;
        if (traits & TRAIT_USE_AQUA == 0) revert OnlyAquaOrdersSupported();
        if (traits & TRAIT_UNWRAP_WETH != 0) revert UnwrapWethNotSupported();
        if (traits & TRAIT_UNSUPPORTED_MASK != 0) revert UnsupportedMakerTraits(traits);
        address receiver = address(uint160(traits));
        if (receiver != address(0) && receiver != order.maker) revert UnsupportedReceiver(receiver);
    }

    function _activeBalance(address maker, bytes32 orderHash, address token) internal view returns (uint256) {
        (uint248 balance, uint8 tokensCount) = AQUA.rawBalances(maker, address(this), orderHash, token);
        if (tokensCount == 0 || tokensCount == DOCKED) revert StrategyNotActive(token);
        return balance;
    }

    /// Header: uint160 of ten uint16 slice end-offsets (slice k at bits 16k, relative to the end of the
    /// header), then uint16 flags. Slices: threshold, to, deadline, hook data x4, callback data x2,
    /// instruction args, then the signature (the rest). Only threshold, to and deadline are read here.
    function _parseTakerTraits(bytes calldata data) internal pure returns (TakerTraits memory taker) {
        if (data.length < TAKER_HEADER_LENGTH) revert InvalidTakerTraits();
        uint256 offsets = uint160(bytes20(data[0:20]));
        taker.flags = uint16(bytes2(data[20:22]));
        bytes calldata body = data[TAKER_HEADER_LENGTH:];
        uint256 start = 0;
        for (uint256 k = 0; k < 10; k++) {
            uint256 end = (offsets >> (16 * k)) & 0xffff;
            if (end < start || end > body.length) revert InvalidTakerTraits();
            if (k == 0) {
                taker.threshold = _readUint(body[start:end]);
            } else if (k == 1) {
                if (end - start == 20) {
                    taker.to = address(bytes20(body[start:end]));
                } else if (end != start) {
                    revert InvalidTakerTraits();
                }
            } else if (k == 2) {
                taker.deadline = _readUint(body[start:end]);
            }
            start = end;
        }
    }

    function _readUint(bytes calldata slice) internal pure returns (uint256) {
        if (slice.length == 0) return 0;
        if (slice.length > 32) revert InvalidTakerTraits();
        return uint256(bytes32(slice)) >> (8 * (32 - slice.length));
    }
}
