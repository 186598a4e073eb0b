// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IERC721Receiver {
    function onERC721Received(address operator, address from, uint256 tokenId, bytes calldata data)
        external
        returns (bytes4);
}

/// @title TestNFT721: a minimal ERC-721 (with the metadata extension and
/// ERC-4906) for avaindex's tests.
/// @notice Each token has its own URI, set at mint and changed by the
/// minter with setTokenURI, which emits ERC-4906's MetadataUpdate.
contract TestNFT721 {
    string public name;
    string public symbol;
    address public immutable minter;

    mapping(uint256 => address) private _owners;
    mapping(address => uint256) private _balances;
    mapping(uint256 => address) private _approvals;
    mapping(address => mapping(address => bool)) private _operators;
    mapping(uint256 => string) private _uris;

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);
    /// ERC-4906
    event MetadataUpdate(uint256 _tokenId);
    event BatchMetadataUpdate(uint256 _fromTokenId, uint256 _toTokenId);

    constructor(string memory name_, string memory symbol_) {
        name = name_;
        symbol = symbol_;
        minter = msg.sender;
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 // ERC-165
            || interfaceId == 0x80ac58cd // ERC-721
            || interfaceId == 0x5b5e139f // ERC-721 metadata
            || interfaceId == 0x49064906; // ERC-4906
    }

    function balanceOf(address owner) external view returns (uint256) {
        require(owner != address(0), "zero address");
        return _balances[owner];
    }

    function ownerOf(uint256 tokenId) public view returns (address owner) {
        owner = _owners[tokenId];
        require(owner != address(0), "no such token");
    }

    function tokenURI(uint256 tokenId) external view returns (string memory) {
        ownerOf(tokenId);
        return _uris[tokenId];
    }

    function mint(address to, uint256 tokenId, string calldata uri) external {
        require(msg.sender == minter, "not the minter");
        require(to != address(0), "mint to the zero address");
        require(_owners[tokenId] == address(0), "token exists");
        _owners[tokenId] = to;
        _balances[to] += 1;
        _uris[tokenId] = uri;
        emit Transfer(address(0), to, tokenId);
    }

    function setTokenURI(uint256 tokenId, string calldata uri) external {
        require(msg.sender == minter, "not the minter");
        ownerOf(tokenId);
        _uris[tokenId] = uri;
        emit MetadataUpdate(tokenId);
    }

    /// refreshMetadata tells indexers that the metadata of tokens
    /// fromTokenId..toTokenId changed (ERC-4906's BatchMetadataUpdate),
    /// without changing their URIs.
    function refreshMetadata(uint256 fromTokenId, uint256 toTokenId) external {
        require(msg.sender == minter, "not the minter");
        emit BatchMetadataUpdate(fromTokenId, toTokenId);
    }

    function approve(address to, uint256 tokenId) external {
        address owner = ownerOf(tokenId);
        require(msg.sender == owner || _operators[owner][msg.sender], "not allowed");
        _approvals[tokenId] = to;
        emit Approval(owner, to, tokenId);
    }

    function getApproved(uint256 tokenId) external view returns (address) {
        ownerOf(tokenId);
        return _approvals[tokenId];
    }

    function setApprovalForAll(address operator, bool approved) external {
        _operators[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function isApprovedForAll(address owner, address operator) external view returns (bool) {
        return _operators[owner][operator];
    }

    function transferFrom(address from, address to, uint256 tokenId) public {
        address owner = ownerOf(tokenId);
        require(owner == from, "from is not the owner");
        require(to != address(0), "transfer to the zero address");
        require(
            msg.sender == owner || _approvals[tokenId] == msg.sender || _operators[owner][msg.sender], "not allowed"
        );
        delete _approvals[tokenId];
        _balances[from] -= 1;
        _balances[to] += 1;
        _owners[tokenId] = to;
        emit Transfer(from, to, tokenId);
    }

    function safeTransferFrom(address from, address to, uint256 tokenId) external {
        safeTransferFrom(from, to, tokenId, "");
    }

    function safeTransferFrom(address from, address to, uint256 tokenId, bytes memory data) public {
        transferFrom(from, to, tokenId);
        if (to.code.length > 0) {
            require(
                IERC721Receiver(to).onERC721Received(msg.sender, from, tokenId, data)
                    == IERC721Receiver.onERC721Received.selector,
                "receiver refused the token"
            );
        }
    }
}
