// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// Devnet USD price feed with the read interface of a Chainlink aggregator (AggregatorV3Interface:
/// `decimals`, `description`, `latestRoundData`), so the service reads a devnet token's price the way it
/// reads a real feed. Its deployer sets the answer, each time as a new round. Never deploy outside a
/// local chain.
contract TestPriceFeed {
    uint8 public immutable decimals;
    string public description;
    address public immutable owner;

    uint80 private round;
    int256 private answer;
    uint256 private updatedAt;

    error NotOwner();

    constructor(uint8 decimals_, string memory description_, int256 answer_) {
        decimals = decimals_;
        description = description_;
        owner = msg.sender;
        setAnswer(answer_);
    }

    function setAnswer(int256 answer_) public {
        if (msg.sender != owner) revert NotOwner();
        round += 1;
        answer = answer_;
        updatedAt = block.timestamp;
    }

    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 price, uint256 startedAt, uint256 updated, uint80 answeredInRound)
    {
        return (round, answer, updatedAt, updatedAt, round);
    }
}
