// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IERC1155Receiver {
    function onERC1155Received(address operator, address from, uint256 id, uint256 value, bytes calldata data)
        external
        returns (bytes4);
    function onERC1155BatchReceived(
        address operator,
        address from,
        uint256[] calldata ids,
        uint256[] calldata values,
        bytes calldata data
    ) external returns (bytes4);
}

/// @title TestMulti1155: a minimal ERC-1155 (with the metadata URI
/// extension) for avaindex's tests.
/// @notice uri(id) is the template given at deployment, with its "{id}"
/// for clients to substitute, unless the minter set the token's own URI
/// with setURI, which emits URI as the standard says.
contract TestMulti1155 {
    string public name;
    string public symbol;
    address public immutable minter;
    string private _template;

    mapping(uint256 => mapping(address => uint256)) private _balances;
    mapping(address => mapping(address => bool)) private _operators;
    mapping(uint256 => string) private _uris;

    event TransferSingle(
        address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value
    );
    event TransferBatch(
        address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values
    );
    event ApprovalForAll(address indexed account, address indexed operator, bool approved);
    event URI(string value, uint256 indexed id);

    constructor(string memory name_, string memory symbol_, string memory template) {
        name = name_;
        symbol = symbol_;
        _template = template;
        minter = msg.sender;
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 // ERC-165
            || interfaceId == 0xd9b67a26 // ERC-1155
            || interfaceId == 0x0e89341c; // ERC-1155 metadata URI
    }

    function uri(uint256 id) external view returns (string memory) {
        bytes memory own = bytes(_uris[id]);
        return own.length > 0 ? string(own) : _template;
    }

    function setURI(uint256 id, string calldata value) external {
        require(msg.sender == minter, "not the minter");
        _uris[id] = value;
        emit URI(value, id);
    }

    function balanceOf(address account, uint256 id) external view returns (uint256) {
        return _balances[id][account];
    }

    function balanceOfBatch(address[] calldata accounts, uint256[] calldata ids)
        external
        view
        returns (uint256[] memory out)
    {
        require(accounts.length == ids.length, "length mismatch");
        out = new uint256[](accounts.length);
        for (uint256 i = 0; i < accounts.length; i++) {
            out[i] = _balances[ids[i]][accounts[i]];
        }
    }

    function setApprovalForAll(address operator, bool approved) external {
        _operators[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function isApprovedForAll(address account, address operator) external view returns (bool) {
        return _operators[account][operator];
    }

    function mint(address to, uint256 id, uint256 value, bytes calldata data) external {
        require(msg.sender == minter, "not the minter");
        require(to != address(0), "mint to the zero address");
        _balances[id][to] += value;
        emit TransferSingle(msg.sender, address(0), to, id, value);
        _checkSingle(address(0), to, id, value, data);
    }

    function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes calldata data) external {
        require(from == msg.sender || _operators[from][msg.sender], "not allowed");
        require(to != address(0), "transfer to the zero address");
        _move(from, to, id, value);
        emit TransferSingle(msg.sender, from, to, id, value);
        _checkSingle(from, to, id, value, data);
    }

    function safeBatchTransferFrom(
        address from,
        address to,
        uint256[] calldata ids,
        uint256[] calldata values,
        bytes calldata data
    ) external {
        require(from == msg.sender || _operators[from][msg.sender], "not allowed");
        require(to != address(0), "transfer to the zero address");
        require(ids.length == values.length, "length mismatch");
        for (uint256 i = 0; i < ids.length; i++) {
            _move(from, to, ids[i], values[i]);
        }
        emit TransferBatch(msg.sender, from, to, ids, values);
        if (to.code.length > 0) {
            require(
                IERC1155Receiver(to).onERC1155BatchReceived(msg.sender, from, ids, values, data)
                    == IERC1155Receiver.onERC1155BatchReceived.selector,
                "receiver refused the tokens"
            );
        }
    }

    function _move(address from, address to, uint256 id, uint256 value) private {
        uint256 held = _balances[id][from];
        require(held >= value, "balance exceeded");
        _balances[id][from] = held - value;
        _balances[id][to] += value;
    }

    function _checkSingle(address from, address to, uint256 id, uint256 value, bytes calldata data) private {
        if (to.code.length > 0) {
            require(
                IERC1155Receiver(to).onERC1155Received(msg.sender, from, id, value, data)
                    == IERC1155Receiver.onERC1155Received.selector,
                "receiver refused the token"
            );
        }
    }
}
