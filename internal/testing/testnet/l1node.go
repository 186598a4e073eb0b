package testnet

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
	"github.com/ava-labs/avalanchego/utils/crypto/bls/signer/localsigner"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"
)

// L1s whose validators are real nodes: the custom network's node itself,
// whose P-chain then signs the L1's messages over ACP-118, and in-process
// peers of the tests.

// L1ValidatorSpec is one validator of a conversion.
type L1ValidatorSpec struct {
	NodeID ids.NodeID
	// PoP is the validator's BLS key with its proof of possession.
	PoP     *signer.ProofOfPossession
	Weight  uint64
	Balance uint64
	// Signer is the validator's BLS key when this process holds it (it
	// then signs the L1's messages in SignL1Warp); nil otherwise.
	Signer *localsigner.LocalSigner
}

// NodeSigner returns the BLS key of the custom network's node, read from
// the node's directory (the network's genesis file sits beside its keys).
func (n *Network) NodeSigner() (*localsigner.LocalSigner, error) {
	if n.GenesisFile == "" {
		return nil, errors.New("testnet: only the custom network's node key is known")
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(n.GenesisFile), "staking", "signer.key"))
	if err != nil {
		return nil, fmt.Errorf("testnet: the node's BLS key: %w", err)
	}
	sk, err := localsigner.FromBytes(b)
	if err != nil {
		return nil, fmt.Errorf("testnet: the node's BLS key: %w", err)
	}
	return sk, nil
}

// NodeAsL1Validator returns the custom network's node as an L1 validator
// of weight and balance: its NodeID and proof of possession from
// info.getNodeID, and its BLS key, held.
func (n *Network) NodeAsL1Validator(ctx context.Context, weight, balance uint64) (L1ValidatorSpec, error) {
	nodeID, pop, err := n.InfoClient().GetNodeID(ctx)
	if err != nil {
		return L1ValidatorSpec{}, fmt.Errorf("info.getNodeID: %w", err)
	}
	if pop == nil {
		return L1ValidatorSpec{}, errors.New("info.getNodeID: the node has no BLS key")
	}
	sk, err := n.NodeSigner()
	if err != nil {
		return L1ValidatorSpec{}, err
	}
	if !bytes.Equal(pop.PublicKey[:], bls.PublicKeyToCompressedBytes(sk.PublicKey())) {
		return L1ValidatorSpec{}, errors.New("testnet: the node's key file does not hold the key info.getNodeID reports")
	}
	return L1ValidatorSpec{NodeID: nodeID, PoP: pop, Weight: weight, Balance: balance, Signer: sk}, nil
}

// CreateL1With creates a subnet and a chain on it, and converts the subnet
// to an L1 managed by a random address on that chain, with vdrs as its
// validators, owned by the local key. The conversion lists them sorted by
// node id, as the P-chain requires; validation ids are SubnetID.Append(i)
// in that order.
// The keys vdrs hold sign the L1's messages in SignL1Warp.
func (n *Network) CreateL1With(ctx context.Context, vdrs []L1ValidatorSpec) (*L1, error) {
	if len(vdrs) == 0 {
		return nil, errors.New("testnet: an L1 needs a validator")
	}
	subnetID, err := n.CreateSubnet(ctx)
	if err != nil {
		return nil, err
	}
	chainID, err := n.CreateChain(ctx, subnetID, "avaindex l1 manager")
	if err != nil {
		return nil, err
	}
	manager := make([]byte, 20)
	if _, err := rand.Read(manager); err != nil {
		return nil, err
	}
	return n.ConvertToL1(ctx, subnetID, chainID, manager, vdrs)
}

// sortedByNodeID returns vdrs sorted by node id, as the P-chain requires a
// conversion's validators; validation ids follow that order.
func sortedByNodeID(vdrs []L1ValidatorSpec) []L1ValidatorSpec {
	vdrs = slices.Clone(vdrs)
	slices.SortFunc(vdrs, func(a, b L1ValidatorSpec) int { return bytes.Compare(a.NodeID[:], b.NodeID[:]) })
	return vdrs
}
