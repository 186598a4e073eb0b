// Package internal holds the domain types that flow from the node clients
// through the decoders into the store and out of the API handlers: Network,
// Chain, PBlock, PTx, XBlock, CAtomicTx, the P-chain's derived values
// (pdata.go: PBatch, Staker, L1Event, Subnet, RewardState, ...) and the
// EVM chains' (evm.go: EVMChain, EVMBlock, EVMTx, EVMTransfer,
// EVMContract, ...).
package internal

import (
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/vms/platformvm/reward"
)

// Chain names one of the three primary-network chains.
type Chain string

const (
	PChain Chain = "P"
	XChain Chain = "X"
	CChain Chain = "C"
)

// Network is what avaindex learned about the network of the node it indexes.
type Network struct {
	ID       uint32 // e.g. 1 mainnet, 5 fuji, 12345 local
	Name     string // avalanchego's name for the id: "mainnet", "fuji", "local", "network-88888"
	HRP      string // bech32 prefix of addresses: "avax", "fuji", "local", "custom"
	PChainID ids.ID
	XChainID ids.ID
	CChainID ids.ID
	// AVAXAssetID is the primary network's staking asset on the X-chain.
	AVAXAssetID ids.ID
	// RewardConfig is the primary network's staking reward configuration,
	// nil for the network's default (genesis.GetStakingConfig): no API
	// tells it, so it is avaindex configuration (the node's --stake-* flags).
	RewardConfig *reward.Config `json:",omitempty"`
}

// PBlock is one accepted P-chain block as the store keeps and serves it:
// the platformvm block bytes (not the proposervm wrapper) and what was
// decoded from them.
type PBlock struct {
	Height   uint64
	ID       ids.ID
	ParentID ids.ID
	// Type is the platformvm block kind, e.g. "BanffStandardBlock".
	Type string
	// Timestamp is the block's own timestamp; zero for pre-Banff blocks,
	// which carry none.
	Timestamp time.Time
	Bytes     []byte
	Txs       []PTx
}

// PTx is one transaction of a P-chain block, in block order.
type PTx struct {
	ID ids.ID
	// Type is the platformvm tx type name, e.g. "CreateSubnetTx".
	Type  string
	Bytes []byte
}

// XBlock is one accepted (post-Cortina) X-chain block.
type XBlock struct {
	Height    uint64
	ID        ids.ID
	ParentID  ids.ID
	Timestamp time.Time
	Bytes     []byte
	Txs       []XTx
}

// XTx is one transaction of an X-chain block, in block order.
type XTx struct {
	ID ids.ID
	// Type is the avm tx type name, e.g. "CreateAssetTx".
	Type  string
	Bytes []byte
}

// CAtomicTx is an atomic import or export transaction of the C-chain.
type CAtomicTx struct {
	ID ids.ID
	// Type is "ImportTx" or "ExportTx".
	Type  string
	Bytes []byte
}
