// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// The integer arithmetic of the reference router's concentrated and pegged instructions (PROTOCOL.md,
/// "Concentrated and pegged programs"): every floor, ceiling and square root where the reference has
/// it, so that quotes and swaps equal the reference to the unit. Checked arithmetic throughout: a bad
/// range or a drained curve reverts with the same Panic the reference raises.
library CurveMath {
    uint256 internal constant E18 = 1e18;
    uint256 internal constant E27 = 1e27;
    uint256 internal constant MAX_LINEAR_WIDTH = 5000e27;

    error PeggedSwapMathInvalidInput();

    /// PeggedSwapGrowPriceRange2D's arguments; x0 and rateLt belong to the token with the lower address.
    struct Peg {
        uint256 x0;
        uint256 y0;
        uint256 linearWidth;
        uint256 rateLt;
        uint256 rateGt;
    }

    /// ⌈x/y⌉ as the reference writes it: 0 for x = 0 (even when y = 0), else (x − 1)/y + 1.
    function ceilDiv(uint256 x, uint256 y) internal pure returns (uint256) {
        return x == 0 ? 0 : (x - 1) / y + 1;
    }

    /// ⌊√x⌋ (Newton's iteration from a power of two above the root).
    function sqrt(uint256 x) internal pure returns (uint256 root) {
        if (x == 0) return 0;
        root = 1 << ((_log2(x) >> 1) + 1);
        uint256 next = (root + x / root) >> 1;
        while (next < root) {
            root = next;
            next = (root + x / root) >> 1;
        }
    }

    /// ⌈√x⌉.
    function sqrtUp(uint256 x) internal pure returns (uint256) {
        uint256 root = sqrt(x);
        return root * root == x ? root : root + 1;
    }

    function _log2(uint256 x) private pure returns (uint256 bits) {
        while (x > 1) {
            x >>= 1;
            bits++;
        }
    }

    /// The virtual balances of a range [sqrtMin², sqrtMax²] (P = tokenGt base units per tokenLt base
    /// unit, sqrt scaled by 1e18) over the real balances: the real root L of
    /// (bLt + L/√Pmax)(bGt + L·√Pmin) = L², then tokenIn gains its share of L rounded up, tokenOut down.
    function concentratedBalances(uint256 balanceIn, uint256 balanceOut, bool inIsLt, uint256 sqrtMin, uint256 sqrtMax)
        internal
        pure
        returns (uint256 virtualIn, uint256 virtualOut)
    {
        (uint256 bLt, uint256 bGt) = inIsLt ? (balanceIn, balanceOut) : (balanceOut, balanceIn);
        uint256 alpha = E18 - (sqrtMin * E18) / sqrtMax;
        uint256 beta = (bLt * sqrtMin) / E18 + (bGt * E18) / sqrtMax;
        uint256 discriminant = beta * beta + ((4 * alpha * bLt) / E18) * bGt;
        uint256 liquidity = ((beta + sqrt(discriminant)) * E18) / (2 * alpha);
        if (inIsLt) {
            virtualIn = balanceIn + ceilDiv(liquidity * E18, sqrtMax);
            virtualOut = balanceOut + (liquidity * sqrtMin) / E18;
        } else {
            virtualIn = balanceIn + ceilDiv(liquidity * sqrtMin, E18);
            virtualOut = balanceOut + (liquidity * E18) / sqrtMax;
        }
    }

    /// The curve oriented by direction: tokenIn's rate and initial balance first.
    struct Oriented {
        uint256 rateIn;
        uint256 rateOut;
        uint256 initialIn;
        uint256 initialOut;
        uint256 scaledIn; // balanceIn · rateIn
        uint256 scaledOut; // balanceOut · rateOut
        uint256 invariant; // C
    }

    function _orient(Peg memory peg, bool inIsLt, uint256 balanceIn, uint256 balanceOut)
        private
        pure
        returns (Oriented memory o)
    {
        (o.rateIn, o.rateOut, o.initialIn, o.initialOut) =
            inIsLt ? (peg.rateLt, peg.rateGt, peg.x0, peg.y0) : (peg.rateGt, peg.rateLt, peg.y0, peg.x0);
        o.scaledIn = balanceIn * o.rateIn;
        o.scaledOut = balanceOut * o.rateOut;
        uint256 u = (o.scaledIn * E27) / o.initialIn;
        uint256 v = (o.scaledOut * E27) / o.initialOut;
        // Recomputed from the current balances every call: fees kept in the pool raise it.
        o.invariant = sqrt(u * E27) + sqrt(v * E27) + (peg.linearWidth * (u + v)) / E27;
    }

    /// The other coordinate of the curve at `s`: √s + A·s + √w + A·w = C solved for w, rounded down.
    function _solve(uint256 s, uint256 invariant, uint256 linearWidth) private pure returns (uint256) {
        uint256 taken = sqrt(s * E27) + (linearWidth * s) / E27;
        if (taken > invariant) revert PeggedSwapMathInvalidInput();
        uint256 rest = invariant - taken;
        if (linearWidth == 0) return (rest * rest) / E27;
        uint256 d = E27 + (4 * linearWidth * rest) / E27;
        uint256 w = (2 * rest * E27) / (E27 + sqrtUp(d * E27));
        return (w * w) / E27;
    }

    /// exactIn output for a curve input `amountIn` (after the fees), rounded for the maker.
    function peggedOut(Peg memory peg, bool inIsLt, uint256 balanceIn, uint256 balanceOut, uint256 amountIn)
        internal
        pure
        returns (uint256)
    {
        Oriented memory o = _orient(peg, inIsLt, balanceIn, balanceOut);
        uint256 u1 = ((o.scaledIn + amountIn * o.rateIn) * E27) / o.initialIn;
        uint256 v1 = _solve(u1, o.invariant, peg.linearWidth);
        uint256 y1 = ceilDiv(v1 * o.initialOut, E27);
        return (o.scaledOut - y1) / o.rateOut;
    }

    /// exactOut input (before the fees) for an output `amountOut`, rounded for the maker.
    function peggedIn(Peg memory peg, bool inIsLt, uint256 balanceIn, uint256 balanceOut, uint256 amountOut)
        internal
        pure
        returns (uint256)
    {
        Oriented memory o = _orient(peg, inIsLt, balanceIn, balanceOut);
        uint256 y1 = o.scaledOut - amountOut * o.rateOut;
        uint256 v1 = (y1 * E27) / o.initialOut;
        uint256 u1 = _solve(v1, o.invariant, peg.linearWidth);
        uint256 x1 = ceilDiv(u1 * o.initialIn, E27);
        return ceilDiv(x1 - o.scaledIn, o.rateIn);
    }
}
