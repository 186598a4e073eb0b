// Package l1node is a Go module of its own that pins the avalanchego and
// subnet-evm versions a real subnet-evm L1 needs in the tests and the devnet:
// avalanchego v1.14.0 and subnet-evm v0.8.0, both speaking RPCChainVM
// protocol 44 (the main module's avalanchego v1.14.2 speaks 45, and no
// subnet-evm release compiles against it). Its two mains, ./node and
// ./subnetevm, are built by `make l1node` and by
// internal/testing/testnet's build helper.
package l1node
