// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title TestChild: what TestFactory deploys; it keeps the value it is
/// given and can pay it out.
contract TestChild {
    address public immutable factory;
    uint256 public immutable tag;

    constructor(uint256 tag_) payable {
        factory = msg.sender;
        tag = tag_;
    }

    receive() external payable {}

    /// pay sends value wei of this contract's balance to `to`.
    function pay(address payable to, uint256 value) external {
        (bool ok,) = to.call{value: value}("");
        require(ok, "payment failed");
    }
}

/// @title TestFactory: deploys TestChild contracts with CREATE and CREATE2,
/// passing on the value sent, and forwards value to any address (internal
/// value transfers).
contract TestFactory {
    event ChildCreated(address indexed child, bytes32 salt, bool create2);

    receive() external payable {}

    /// create deploys a TestChild with CREATE, endowed with msg.value.
    function create(uint256 tag) external payable returns (address child) {
        child = address(new TestChild{value: msg.value}(tag));
        emit ChildCreated(child, bytes32(0), false);
    }

    /// create2 deploys a TestChild with CREATE2 and salt, endowed with
    /// msg.value; predict(salt, tag) is its address.
    function create2(bytes32 salt, uint256 tag) external payable returns (address child) {
        child = address(new TestChild{salt: salt, value: msg.value}(tag));
        emit ChildCreated(child, salt, true);
    }

    /// predict is the address create2(salt, tag) deploys to.
    function predict(bytes32 salt, uint256 tag) external view returns (address) {
        bytes32 h = keccak256(
            abi.encodePacked(bytes1(0xff), address(this), salt, keccak256(abi.encodePacked(type(TestChild).creationCode, tag)))
        );
        return address(uint160(uint256(h)));
    }

    /// forward sends msg.value on to each of `to`, in equal parts.
    function forward(address payable[] calldata to) external payable {
        require(to.length > 0, "no recipient");
        uint256 part = msg.value / to.length;
        for (uint256 i = 0; i < to.length; i++) {
            (bool ok,) = to[i].call{value: part}("");
            require(ok, "forward failed");
        }
    }
}
