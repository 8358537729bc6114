// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// Minimal ERC20 surface used by the devnet contracts.
interface IERC20 {
    function balanceOf(address owner) external view returns (uint256);
    function allowance(address owner, address spender) external view returns (uint256);
    function approve(address spender, uint256 amount) external returns (bool);
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// Token calls that accept both bool-returning and non-returning ERC20 implementations. Like the
/// reference contracts' SafeERC20 (PROTOCOL.md), a failing token call never bubbles the token's own
/// reason: every failed transferFrom reverts `SafeTransferFromFailed()` (0xf4059071).
library SafeTokenCalls {
    error SafeTransferFromFailed();
    error ForceApproveFailed();

    function safeTransferFrom(address token, address from, address to, uint256 amount) internal {
        if (!_call(token, abi.encodeCall(IERC20.transferFrom, (from, to, amount)))) revert SafeTransferFromFailed();
    }

    /// Sets the allowance; a token that refuses a change from a set value (USDT) gets approve(0) first.
    function forceApprove(address token, address spender, uint256 amount) internal {
        if (_call(token, abi.encodeCall(IERC20.approve, (spender, amount)))) return;
        if (
            !_call(token, abi.encodeCall(IERC20.approve, (spender, 0)))
                || !_call(token, abi.encodeCall(IERC20.approve, (spender, amount)))
        ) revert ForceApproveFailed();
    }

    function _call(address token, bytes memory data) private returns (bool) {
        (bool ok, bytes memory ret) = token.call(data);
        if (!ok) return false;
        return ret.length == 0 ? token.code.length > 0 : (ret.length >= 32 && abi.decode(ret, (bool)));
    }
}
