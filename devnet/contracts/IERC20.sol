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

/// Token calls that accept both bool-returning and non-returning ERC20 implementations.
library SafeTokenCalls {
    error TokenCallFailed(address token, bytes4 selector);

    function safeTransferFrom(address token, address from, address to, uint256 amount) internal {
        _call(token, abi.encodeCall(IERC20.transferFrom, (from, to, amount)));
    }

    function safeApprove(address token, address spender, uint256 amount) internal {
        _call(token, abi.encodeCall(IERC20.approve, (spender, amount)));
    }

    function _call(address token, bytes memory data) private {
        (bool ok, bytes memory ret) = token.call(data);
        bool returnedTrue = ret.length == 0 ? token.code.length > 0 : (ret.length >= 32 && abi.decode(ret, (bool)));
        if (!ok || !returnedTrue) revert TokenCallFailed(token, bytes4(data));
    }
}
