// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAqua} from "./IAqua.sol";
import {SafeTokenCalls} from "./IERC20.sol";

/// Devnet ledger compatible with 1inch Aqua (PROTOCOL.md): virtual balances per
/// maker / app / strategyHash / token. Tokens stay in the maker's wallet; apps pull from it.
contract Aqua is IAqua {
    /// tokensCount: 0 never shipped, 1..254 active, 0xFF docked.
    struct Balance {
        uint248 balance;
        uint8 tokensCount;
    }

    uint8 internal constant DOCKED = 0xFF;
    uint256 internal constant MAX_TOKENS = 254;

    mapping(
        address maker => mapping(address app => mapping(bytes32 strategyHash => mapping(address token => Balance)))
    ) internal _balances;

    /// Set on the first ship of a hash and never cleared, so no strategy bytes are ever shipped twice.
    mapping(address maker => mapping(address app => mapping(bytes32 strategyHash => bool))) internal _shipped;

    // No indexed arguments: the topic0 values equal the real Aqua's.
    event Shipped(address maker, address app, bytes32 strategyHash, bytes strategy);
    event Docked(address maker, address app, bytes32 strategyHash);
    event Pulled(address maker, address app, bytes32 strategyHash, address token, uint256 amount);
    event Pushed(address maker, address app, bytes32 strategyHash, address token, uint256 amount);

    error StrategiesMustBeImmutable(address app, bytes32 strategyHash);
    error LengthMismatch(uint256 tokens, uint256 amounts);
    error InvalidTokensCount(uint256 count);
    error AmountExceedsUint248(uint256 amount);
    error DockingShouldCloseAllTokens(address app, bytes32 strategyHash);
    error PullExceedsBalance(address token, uint256 balance, uint256 amount);
    error PushToNonActiveStrategyPrevented(address maker, address app, bytes32 strategyHash, address token);
    error SafeBalancesForTokenNotInActiveStrategy(address token);

    function ship(address app, bytes calldata strategy, address[] calldata tokens, uint256[] calldata amounts)
        external
        returns (bytes32 strategyHash)
    {
        uint256 count = tokens.length;
        if (count != amounts.length) revert LengthMismatch(count, amounts.length);
        if (count == 0 || count > MAX_TOKENS) revert InvalidTokensCount(count);

        strategyHash = keccak256(strategy);
        if (_shipped[msg.sender][app][strategyHash]) revert StrategiesMustBeImmutable(app, strategyHash);
        _shipped[msg.sender][app][strategyHash] = true;

        emit Shipped(msg.sender, app, strategyHash, strategy);
        mapping(address => Balance) storage byToken = _balances[msg.sender][app][strategyHash];
        for (uint256 i = 0; i < count; i++) {
            Balance storage entry = byToken[tokens[i]];
            // A duplicate token finds its own entry already set.
            if (entry.tokensCount != 0) revert StrategiesMustBeImmutable(app, strategyHash);
            uint256 amount = amounts[i];
            if (amount > type(uint248).max) revert AmountExceedsUint248(amount);
            entry.balance = uint248(amount);
            entry.tokensCount = uint8(count);
            emit Pushed(msg.sender, app, strategyHash, tokens[i], amount);
        }
    }

    function dock(address app, bytes32 strategyHash, address[] calldata tokens) external {
        uint256 count = tokens.length;
        if (count == 0 || count > MAX_TOKENS) revert DockingShouldCloseAllTokens(app, strategyHash);
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
        uint256 current = entry.balance;
        if (amount > current) revert PullExceedsBalance(token, current, amount);
        unchecked {
            entry.balance = uint248(current - amount);
        }
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
        uint256 next = uint256(entry.balance) + amount;
        if (next > type(uint248).max) revert AmountExceedsUint248(next);
        entry.balance = uint248(next);
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
        Balance storage entry1 = byToken[token1];
        if (entry0.tokensCount == 0 || entry0.tokensCount == DOCKED) {
            revert SafeBalancesForTokenNotInActiveStrategy(token0);
        }
        if (entry1.tokensCount == 0 || entry1.tokensCount == DOCKED) {
            revert SafeBalancesForTokenNotInActiveStrategy(token1);
        }
        return (entry0.balance, entry1.balance);
    }
}
