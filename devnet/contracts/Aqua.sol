// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAqua} from "./IAqua.sol";
import {SafeTokenCalls} from "./IERC20.sol";

/// Devnet ledger compatible with 1inch Aqua (PROTOCOL.md): virtual balances per
/// maker / app / strategyHash / token. Tokens stay in the maker's wallet; apps pull from it.
/// Every revert carries the reference encoding of PROTOCOL.md's table: checked arithmetic (Panic 0x11)
/// on a pull above the balance, `SafeTransferFromFailed()` on a failed token transfer, and the
/// reference's own errors and argument lists. Like the reference, `ship` keeps no record of a hash
/// beyond the per-token entries: an empty token list ships (only `Shipped` is emitted), extra amounts
/// are ignored, and a token already set (a duplicate, or a hash active or docked) reverts.
contract Aqua is IAqua {
    /// tokensCount: 0 never shipped, 1..254 active, 0xFF docked.
    struct Balance {
        uint248 balance;
        uint8 tokensCount;
    }

    uint8 internal constant DOCKED = 0xFF;

    mapping(
        address maker => mapping(address app => mapping(bytes32 strategyHash => mapping(address token => Balance)))
    ) internal _balances;

    // No indexed arguments: the topic0 values equal the real Aqua's.
    event Shipped(address maker, address app, bytes32 strategyHash, bytes strategy);
    event Docked(address maker, address app, bytes32 strategyHash);
    event Pulled(address maker, address app, bytes32 strategyHash, address token, uint256 amount);
    event Pushed(address maker, address app, bytes32 strategyHash, address token, uint256 amount);

    error StrategiesMustBeImmutable(address app, bytes32 strategyHash);
    error MaxNumberOfTokensExceeded(uint256 tokensCount, uint256 maxTokensCount);
    error DockingShouldCloseAllTokens(address app, bytes32 strategyHash);
    error PushToNonActiveStrategyPrevented(address maker, address app, bytes32 strategyHash, address token);
    error SafeBalancesForTokenNotInActiveStrategy(address maker, address app, bytes32 strategyHash, address token);
    /// OpenZeppelin SafeCast's error, as the reference raises it for a count or an amount too wide.
    error SafeCastOverflowedUintDowncast(uint8 bits, uint256 value);

    function ship(address app, bytes calldata strategy, address[] calldata tokens, uint256[] calldata amounts)
        external
        returns (bytes32 strategyHash)
    {
        strategyHash = keccak256(strategy);
        uint256 count = tokens.length;
        if (count > type(uint8).max) revert SafeCastOverflowedUintDowncast(8, count);
        if (count == DOCKED) revert MaxNumberOfTokensExceeded(count, DOCKED);

        emit Shipped(msg.sender, app, strategyHash, strategy);
        mapping(address => Balance) storage byToken = _balances[msg.sender][app][strategyHash];
        for (uint256 i = 0; i < count; i++) {
            Balance storage entry = byToken[tokens[i]];
            // A duplicate token, or a hash already active or docked, finds its entry set.
            if (entry.tokensCount != 0) revert StrategiesMustBeImmutable(app, strategyHash);
            uint256 amount = amounts[i]; // fewer amounts than tokens: Panic(0x32), as on the reference
            entry.balance = _toUint248(amount);
            entry.tokensCount = uint8(count);
            emit Pushed(msg.sender, app, strategyHash, tokens[i], amount);
        }
    }

    function dock(address app, bytes32 strategyHash, address[] calldata tokens) external {
        uint256 count = tokens.length;
        mapping(address => Balance) storage byToken = _balances[msg.sender][app][strategyHash];
        for (uint256 i = 0; i < count; i++) {
            Balance storage entry = byToken[tokens[i]];
            // Every listed token must belong to a strategy of exactly `count` tokens; a token listed twice
            // finds itself already docked. Together: the list is exactly the shipped set.
            if (entry.tokensCount != count) revert DockingShouldCloseAllTokens(app, strategyHash);
            entry.balance = 0;
            entry.tokensCount = DOCKED;
        }
        emit Docked(msg.sender, app, strategyHash);
    }

    /// Called by the app (msg.sender): moves real tokens from the maker's wallet to `to`.
    function pull(address maker, bytes32 strategyHash, address token, uint256 amount, address to) external {
        Balance storage entry = _balances[maker][msg.sender][strategyHash][token];
        // Checked subtraction: a pull above the balance reverts Panic(0x11), like the reference.
        entry.balance = entry.balance - _toUint248(amount);
        SafeTokenCalls.safeTransferFrom(token, maker, to, amount);
        emit Pulled(maker, msg.sender, strategyHash, token, amount);
    }

    /// Anyone adds to an active strategy: tokens move from msg.sender to the maker's wallet.
    function push(address maker, address app, bytes32 strategyHash, address token, uint256 amount) external {
        Balance storage entry = _balances[maker][app][strategyHash][token];
        uint8 tokensCount = entry.tokensCount;
        if (tokensCount == 0 || tokensCount == DOCKED) {
            revert PushToNonActiveStrategyPrevented(maker, app, strategyHash, token);
        }
        entry.balance = entry.balance + _toUint248(amount);
        SafeTokenCalls.safeTransferFrom(token, msg.sender, maker, amount);
        emit Pushed(maker, app, strategyHash, token, amount);
    }

    function rawBalances(address maker, address app, bytes32 strategyHash, address token)
        external
        view
        returns (uint248 balance, uint8 tokensCount)
    {
        Balance storage entry = _balances[maker][app][strategyHash][token];
        return (entry.balance, entry.tokensCount);
    }

    function safeBalances(address maker, address app, bytes32 strategyHash, address token0, address token1)
        external
        view
        returns (uint256 balance0, uint256 balance1)
    {
        mapping(address => Balance) storage byToken = _balances[maker][app][strategyHash];
        Balance storage entry0 = byToken[token0];
        if (entry0.tokensCount == 0 || entry0.tokensCount == DOCKED) {
            revert SafeBalancesForTokenNotInActiveStrategy(maker, app, strategyHash, token0);
        }
        Balance storage entry1 = byToken[token1];
        if (entry1.tokensCount == 0 || entry1.tokensCount == DOCKED) {
            revert SafeBalancesForTokenNotInActiveStrategy(maker, app, strategyHash, token1);
        }
        return (entry0.balance, entry1.balance);
    }

    function _toUint248(uint256 value) internal pure returns (uint248) {
        if (value > type(uint248).max) revert SafeCastOverflowedUintDowncast(248, value);
        return uint248(value);
    }
}
