// Package warptest runs in-process validators for tests and benchmarks of
// warp signature aggregation: real avalanchego network peers on loopback,
// each with its own TLS and BLS keys, answering ACP-118 signature requests
// through avalanchego's acp118 handler, or misbehaving on purpose (silent,
// a wrong signature, a refusal) where a real node cannot be made to.
package warptest

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/network/p2p"
	"github.com/ava-labs/avalanchego/network/p2p/acp118"
	"github.com/ava-labs/avalanchego/snow/engine/common"
	"github.com/ava-labs/avalanchego/snow/validators"
	"github.com/ava-labs/avalanchego/utils/compression"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp"

	"github.com/avaindex/avaindex/internal/warpagg/p2pnet"
)

// Behavior is how a validator answers signature requests.
type Behavior int

const (
	// Honest signs what its verifier accepts, with its own key, through
	// acp118's handler.
	Honest Behavior = iota
	// Silent never answers.
	Silent
	// WrongSignature answers, through acp118's handler, a valid BLS
	// signature of other bytes: it does not verify for the message.
	WrongSignature
	// Refuse answers an application error (RefusalCode), as a verifier
	// that does not accept the message does.
	Refuse
	// Garbage answers bytes that are not a BLS signature.
	Garbage
)

// RefusalCode is the error code of a Refuse validator.
const RefusalCode = 77

// Validator is an in-process validator.
type Validator struct {
	*p2pnet.Peer
	Weight   uint64
	Behavior Behavior
}

// AcceptAll is an acp118.Verifier that accepts every message.
type AcceptAll struct{}

// Verify accepts msg.
func (AcceptAll) Verify(context.Context, *warp.UnsignedMessage, []byte) *common.AppError { return nil }

// NewValidator starts a validator of networkID listening on loopback that
// answers requests on each of chainIDs with behavior; an Honest validator
// signs what verifier accepts (AcceptAll when nil).
func NewValidator(networkID uint32, weight uint64, behavior Behavior, verifier acp118.Verifier, chainIDs ...ids.ID) (*Validator, error) {
	if verifier == nil {
		verifier = AcceptAll{}
	}
	// Answers are compressed as avalanchego nodes compress them.
	p, err := p2pnet.New(p2pnet.Config{NetworkID: networkID, Listen: "127.0.0.1:0", Compression: compression.TypeZstd})
	if err != nil {
		return nil, err
	}
	v := &Validator{Peer: p, Weight: weight, Behavior: behavior}
	for _, chainID := range chainIDs {
		var h p2p.Handler
		switch behavior {
		case Honest:
			h = acp118.NewHandler(verifier, warp.NewSigner(p.Signer(), networkID, chainID))
		case WrongSignature:
			h = acp118.NewHandler(verifier, wrongSigner{p.Signer()})
		case Silent:
			h = silent{}
		case Refuse:
			h = acp118.NewHandler(refuser{}, warp.NewSigner(p.Signer(), networkID, chainID))
		case Garbage:
			h = acp118.NewHandler(verifier, garbageSigner{})
		default:
			p.Close()
			return nil, fmt.Errorf("warptest: unknown behavior %d", behavior)
		}
		if err := p.AddHandler(chainID, acp118.HandlerID, h); err != nil {
			p.Close()
			return nil, err
		}
	}
	return v, nil
}

// PublicKey returns the validator's BLS public key.
func (v *Validator) PublicKey() *bls.PublicKey { return v.Signer().PublicKey() }

// ProofOfPossession returns the validator's BLS key with its proof of
// possession, as a P-chain tx registers it.
func (v *Validator) ProofOfPossession() (*signer.ProofOfPossession, error) {
	return signer.NewProofOfPossession(v.Signer())
}

// wrongSigner signs other bytes than the message's.
type wrongSigner struct{ sk bls.Signer }

func (w wrongSigner) Sign(msg *warp.UnsignedMessage) ([]byte, error) {
	sig, err := w.sk.Sign(append(msg.Bytes(), 'x'))
	if err != nil {
		return nil, err
	}
	return bls.SignatureToBytes(sig), nil
}

// garbageSigner answers 96 bytes that are not a point of the curve.
type garbageSigner struct{}

func (garbageSigner) Sign(*warp.UnsignedMessage) ([]byte, error) {
	b := make([]byte, bls.SignatureLen)
	for i := range b {
		b[i] = 0xff
	}
	return b, nil
}

// refuser refuses every message.
type refuser struct{}

func (refuser) Verify(context.Context, *warp.UnsignedMessage, []byte) *common.AppError {
	return &common.AppError{Code: RefusalCode, Message: "warptest: this validator refuses to sign"}
}

// silent holds every request past its deadline and then drops it.
type silent struct{}

func (silent) AppGossip(context.Context, ids.NodeID, []byte) {}

func (silent) AppRequest(ctx context.Context, _ ids.NodeID, deadline time.Time, _ []byte) ([]byte, *common.AppError) {
	t := time.NewTimer(time.Until(deadline) + time.Second)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
	return nil, common.ErrTimeout
}

// Set is a set of in-process validators.
type Set []*Validator

// NewSet starts n honest validators of weight 1 each; it closes those
// started when one fails.
func NewSet(networkID uint32, n int, chainIDs ...ids.ID) (Set, error) {
	s := make(Set, n)
	var (
		wg   sync.WaitGroup
		errs = make([]error, n)
	)
	for i := range s {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s[i], errs[i] = NewValidator(networkID, 1, Honest, nil, chainIDs...)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close stops every validator.
func (s Set) Close() {
	var wg sync.WaitGroup
	for _, v := range s {
		if v == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			v.Close()
		}()
	}
	wg.Wait()
}

// Output returns the validators as the P-chain's GetValidatorSet does.
func (s Set) Output() map[ids.NodeID]*validators.GetValidatorOutput {
	out := make(map[ids.NodeID]*validators.GetValidatorOutput, len(s))
	for _, v := range s {
		out[v.NodeID()] = &validators.GetValidatorOutput{NodeID: v.NodeID(), PublicKey: v.PublicKey(), Weight: v.Weight}
	}
	return out
}

// WarpSet returns the canonical validator set warp verification uses.
func (s Set) WarpSet() (validators.WarpSet, error) { return validators.FlattenValidatorSet(s.Output()) }

// Addrs returns where the validators listen.
func (s Set) Addrs() map[ids.NodeID]netip.AddrPort {
	out := make(map[ids.NodeID]netip.AddrPort, len(s))
	for _, v := range s {
		out[v.NodeID()] = v.Addr()
	}
	return out
}

// Source is a fixed P-chain view: one subnet validating the given chains
// with one validator set at every height up to Height.
type Source struct {
	SubnetID ids.ID
	Chains   []ids.ID
	AtHeight uint64
	Set      map[ids.NodeID]*validators.GetValidatorOutput
	// ErrUnknownChain is what SubnetOf wraps for a chain it does not know
	// (the aggregator's warpagg.ErrUnknownChain).
	ErrUnknownChain error
}

// SubnetOf returns SubnetID for its chains and the primary network for
// the P-chain.
func (s *Source) SubnetOf(_ context.Context, chainID ids.ID) (ids.ID, error) {
	for _, c := range s.Chains {
		if c == chainID {
			return s.SubnetID, nil
		}
	}
	if chainID == constants.PlatformChainID {
		return constants.PrimaryNetworkID, nil
	}
	return ids.Empty, fmt.Errorf("warptest: chain %s: %w", chainID, s.ErrUnknownChain)
}

// Height returns AtHeight.
func (s *Source) Height(context.Context) (uint64, error) { return s.AtHeight, nil }

// ProposedHeight returns AtHeight.
func (s *Source) ProposedHeight(context.Context) (uint64, error) { return s.AtHeight, nil }

// ValidatorsAt returns Set for SubnetID and an empty set for any other.
func (s *Source) ValidatorsAt(_ context.Context, subnetID ids.ID, _ uint64) (map[ids.NodeID]*validators.GetValidatorOutput, error) {
	if subnetID != s.SubnetID {
		return map[ids.NodeID]*validators.GetValidatorOutput{}, nil
	}
	return s.Set, nil
}
