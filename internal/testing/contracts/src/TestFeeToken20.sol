// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title TestFeeToken20: an ERC-20 whose Transfer logs do not explain its
/// balances, for avaindex's tests.
/// @notice A transfer logs the amount sent, but the recipient is credited
/// that amount less a fee of feePercent, which goes to the minter without
/// an event (as some fee-on-transfer tokens do). Mints log as usual.
contract TestFeeToken20 {
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    uint8 public immutable feePercent;
    uint256 public totalSupply;
    address public immutable minter;

    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    constructor(string memory name_, string memory symbol_, uint8 decimals_, uint8 feePercent_) {
        require(feePercent_ < 100, "fee of 100% or more");
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        feePercent = feePercent_;
        minter = msg.sender;
    }

    function mint(address to, uint256 value) external {
        require(msg.sender == minter, "not the minter");
        require(to != address(0), "mint to the zero address");
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        require(to != address(0), "transfer to the zero address");
        uint256 held = balanceOf[msg.sender];
        require(held >= value, "balance exceeded");
        uint256 fee = (value * feePercent) / 100;
        balanceOf[msg.sender] = held - value;
        balanceOf[to] += value - fee;
        balanceOf[minter] += fee;
        emit Transfer(msg.sender, to, value);
        return true;
    }
}
