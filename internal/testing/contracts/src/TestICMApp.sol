// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

// The part of ICM v1's TeleporterMessenger interface that TestICMApp
// calls, declared from its published ABI.
interface ITestMessenger {
    struct FeeInfo {
        address feeTokenAddress;
        uint256 amount;
    }

    struct MessageInput {
        bytes32 destinationBlockchainID;
        address destinationAddress;
        FeeInfo feeInfo;
        uint256 requiredGasLimit;
        address[] allowedRelayerAddresses;
        bytes message;
    }

    function sendCrossChainMessage(MessageInput calldata messageInput) external returns (bytes32);
}

interface ITestApprove {
    function approve(address spender, uint256 value) external returns (bool);
}

// TestICMApp sends and receives Teleporter messages through the messenger
// it is given: send carries a string to another chain's app, paying fee
// of feeToken (which the app must hold); receiving records the string,
// and reverts while the app is closed (an execution that fails, to be
// retried once opened).
contract TestICMApp {
    address public immutable messenger;
    bool public closed;
    uint256 public received;
    bytes32 public lastSource;
    address public lastSender;
    string public lastMessage;

    event Received(bytes32 indexed sourceBlockchainID, address indexed originSender, string message);

    constructor(address messenger_) {
        messenger = messenger_;
    }

    function setClosed(bool closed_) external {
        closed = closed_;
    }

    function send(bytes32 destination, address to, string calldata message, address feeToken, uint256 fee)
        external
        returns (bytes32)
    {
        if (fee > 0) {
            require(ITestApprove(feeToken).approve(messenger, fee), "TestICMApp: approve");
        }
        return ITestMessenger(messenger).sendCrossChainMessage(
            ITestMessenger.MessageInput({
                destinationBlockchainID: destination,
                destinationAddress: to,
                feeInfo: ITestMessenger.FeeInfo(feeToken, fee),
                requiredGasLimit: 300_000,
                allowedRelayerAddresses: new address[](0),
                message: bytes(message)
            })
        );
    }

    function receiveTeleporterMessage(bytes32 sourceBlockchainID, address originSenderAddress, bytes calldata message)
        external
    {
        require(msg.sender == messenger, "TestICMApp: not the messenger");
        require(!closed, "TestICMApp: closed");
        received++;
        lastSource = sourceBlockchainID;
        lastSender = originSenderAddress;
        lastMessage = string(message);
        emit Received(sourceBlockchainID, originSenderAddress, string(message));
    }
}
