package nodeapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/ava-labs/avalanchego/api"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting"
	avajson "github.com/ava-labs/avalanchego/utils/json"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/status"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
)

// PlatformTxSource is what the platform service reads of the P-chain's
// txs and blocks for getTx, getTxStatus and getTimestamp.
type PlatformTxSource interface {
	PTx(ctx context.Context, id ids.ID) (*store.TxRecord, error)
	BlockSummaryByHeight(ctx context.Context, q store.BlockQuery, height uint64) (*store.BlockSummary, error)
}

// TxStatusUpstream is what the platform service asks the node of a tx the
// index does not hold: its mempool's view (processing, dropped).
type TxStatusUpstream interface {
	PTxStatus(ctx context.Context, txID ids.ID) (*platformvm.GetTxStatusResponse, error)
}

// The node's errors, word for word (platformvm/service.go).
var errPrimaryNetworkIsNotASubnet = errors.New("the primary network isn't a subnet")

// acceptedTx returns the stored tx id and its status once decided:
// committed, or for the tx of a proposal block the decision of the option
// block after it. A proposal not yet decided is not in the node's state
// either: derrors.NotFound.
func (p *Platform) acceptedTx(ctx context.Context, id ids.ID) (*store.TxRecord, status.Status, error) {
	rec, err := p.store.PTx(ctx, id)
	if errors.Is(err, derrors.NotFound) {
		return p.genesisTx(ctx, id, err)
	}
	if err != nil {
		return nil, status.Unknown, err
	}
	blk, err := p.store.BlockSummaryByHeight(ctx, store.BlockQuery{Chain: internal.PChain}, rec.Height)
	if err != nil {
		return nil, status.Unknown, err
	}
	// A proposal block's proposal tx is its last; the decision txs a Banff
	// one carries before it are committed whichever option is taken.
	if !strings.HasSuffix(blk.Type, "ProposalBlock") || len(blk.TxIDs) == 0 || blk.TxIDs[len(blk.TxIDs)-1] != id {
		return rec, status.Committed, nil
	}
	option, err := p.store.BlockSummaryByHeight(ctx, store.BlockQuery{Chain: internal.PChain}, rec.Height+1)
	switch {
	case errors.Is(err, derrors.NotFound):
		return nil, status.Unknown, fmt.Errorf("proposal %s undecided: %w", id, derrors.NotFound)
	case err != nil:
		return nil, status.Unknown, err
	case strings.HasSuffix(option.Type, "AbortBlock"):
		return rec, status.Aborted, nil
	}
	return rec, status.Committed, nil
}

// genesisTx returns the genesis's tx id (committed, though no block
// carries it), or notFound.
func (p *Platform) genesisTx(ctx context.Context, id ids.ID, notFound error) (*store.TxRecord, status.Status, error) {
	first, err := p.store.BlockSummaryByHeight(ctx, store.BlockQuery{Chain: internal.PChain}, 0)
	if errors.Is(err, derrors.NotFound) {
		return nil, status.Unknown, notFound
	}
	if err != nil {
		return nil, status.Unknown, err
	}
	b, ok, err := pchain.GenesisTx(first.ParentID, id)
	if err != nil {
		return nil, status.Unknown, err
	}
	if !ok {
		return nil, status.Unknown, notFound
	}
	return &store.TxRecord{ID: id, Bytes: b}, status.Committed, nil
}

// GetTx answers an accepted tx from the store, in the node's encodings.
func (p *Platform) GetTx(r *http.Request, args *api.GetTxArgs, reply *api.GetTxReply) error {
	rec, _, err := p.acceptedTx(r.Context(), args.TxID)
	if err != nil {
		return storeError("couldn't get tx", err)
	}
	reply.Encoding = args.Encoding
	if args.Encoding == formatting.JSON {
		if reply.Tx, err = p.format.TxJSON(rec.Bytes); err != nil {
			return fmt.Errorf("couldn't encode tx as %s: internal error", args.Encoding)
		}
		return nil
	}
	s, err := formatting.Encode(args.Encoding, rec.Bytes)
	if err != nil {
		return fmt.Errorf("couldn't encode tx as %s: %w", args.Encoding, err)
	}
	reply.Tx, err = json.Marshal(s)
	return err
}

// GetTxStatus answers Committed or Aborted for a tx the store holds. Of
// any other, only the node's mempool knows more: it is asked, and a tx
// it holds as accepted that the index has not reached yet is still
// Processing here, so that getTx finds every tx reported accepted. With
// no node, the status is Unknown.
func (p *Platform) GetTxStatus(r *http.Request, args *platformvm.GetTxStatusArgs, reply *platformvm.GetTxStatusResponse) error {
	_, st, err := p.acceptedTx(r.Context(), args.TxID)
	if err == nil {
		reply.Status = st
		return nil
	}
	if !errors.Is(err, derrors.NotFound) {
		return storeError("couldn't get tx status", err)
	}
	reply.Status = status.Unknown
	up, ok := p.upstream.(TxStatusUpstream)
	if !ok {
		return nil
	}
	node, err := up.PTxStatus(r.Context(), args.TxID)
	if err != nil {
		return nil //nolint:nilerr // a node that does not answer knows nothing more
	}
	switch node.Status {
	case status.Committed, status.Aborted:
		reply.Status = status.Processing
	case status.Processing, status.Dropped:
		reply.Status, reply.Reason = node.Status, node.Reason
	}
	return nil
}

// GetTimestamp answers the chain time of the last indexed block: the
// time its state holds, as the node's does for its last accepted block.
func (p *Platform) GetTimestamp(r *http.Request, _ *struct{}, reply *platformvm.GetTimestampReply) error {
	ctx := r.Context()
	h, ok, err := p.store.Cursor(ctx, store.ChainCursor(internal.PChain))
	if err != nil {
		return storeError("couldn't get timestamp", err)
	}
	if !ok {
		return errors.New("couldn't get timestamp: no block indexed yet")
	}
	blk, err := p.store.BlockSummaryByHeight(ctx, store.BlockQuery{Chain: internal.PChain}, h)
	if err != nil {
		return storeError("couldn't get timestamp", err)
	}
	if blk.Timestamp.IsZero() {
		return errors.New("couldn't get timestamp: the last indexed block is older than Banff and carries none")
	}
	// The node's state renders the time it read with time.Unix.
	reply.Timestamp = time.Unix(blk.Timestamp.Unix(), 0)
	return nil
}

// GetStakingAssetID answers AVAX for the primary network and the asset of
// a subnet's TransformSubnetTx.
func (p *Platform) GetStakingAssetID(r *http.Request, args *platformvm.GetStakingAssetIDArgs, reply *platformvm.GetStakingAssetIDResponse) error {
	if args.SubnetID == constants.PrimaryNetworkID {
		reply.AssetID = p.network.AVAXAssetID
		return nil
	}
	ctx := r.Context()
	what := fmt.Sprintf("failed fetching subnet transformation for %s", args.SubnetID)
	s, err := p.store.Subnet(ctx, args.SubnetID)
	if err == nil && s.TransformTxID == ids.Empty {
		err = derrors.NotFound
	}
	if err != nil {
		return storeError(what, err)
	}
	rec, err := p.store.PTx(ctx, s.TransformTxID)
	if err != nil {
		return storeError(what, err)
	}
	tx, err := txs.Parse(txs.Codec, rec.Bytes)
	if err != nil {
		return fmt.Errorf("%s: internal error", what)
	}
	transform, ok := tx.Unsigned.(*txs.TransformSubnetTx)
	if !ok {
		return fmt.Errorf("unexpected subnet transformation tx type fetched %T", tx.Unsigned)
	}
	reply.AssetID = transform.AssetID
	return nil
}

// GetSubnet answers a subnet's owner, transformation and L1 conversion.
func (p *Platform) GetSubnet(r *http.Request, args *platformvm.GetSubnetArgs, reply *platformvm.GetSubnetResponse) error {
	if args.SubnetID == constants.PrimaryNetworkID {
		return errPrimaryNetworkIsNotASubnet
	}
	s, err := p.store.Subnet(r.Context(), args.SubnetID)
	if err != nil {
		return bareNotFound("couldn't get subnet", err)
	}
	if reply.ControlKeys, err = p.controlKeys(s.Owner.Addresses); err != nil {
		return err
	}
	reply.Threshold = avajson.Uint32(s.Owner.Threshold)
	reply.Locktime = avajson.Uint64(s.Owner.Locktime)
	reply.IsPermissioned = s.TransformTxID == ids.Empty && s.Conversion == nil
	reply.SubnetTransformationTxID = s.TransformTxID
	if c := s.Conversion; c != nil {
		reply.ConversionID, reply.ManagerChainID, reply.ManagerAddress = c.ID, c.ManagerChainID, c.ManagerAddress
	}
	return nil
}

// parsedTx is the accepted tx id, parsed; err is what to answer for one
// that is not, worded with what.
func (p *Platform) parsedTx(ctx context.Context, id ids.ID, what string) (*txs.Tx, error) {
	rec, _, err := p.acceptedTx(ctx, id)
	if err != nil {
		return nil, storeError(fmt.Sprintf("%s %q", what, id), err)
	}
	tx, err := txs.Parse(txs.GenesisCodec, rec.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s %q: internal error", what, id)
	}
	return tx, nil
}

// ValidatedBy answers the subnet that validates a blockchain.
func (p *Platform) ValidatedBy(r *http.Request, args *platformvm.ValidatedByArgs, reply *platformvm.ValidatedByResponse) error {
	if args.BlockchainID == constants.PlatformChainID {
		reply.SubnetID = constants.PrimaryNetworkID
		return nil
	}
	tx, err := p.parsedTx(r.Context(), args.BlockchainID, "problem retrieving blockchain")
	if err != nil {
		return err
	}
	chain, ok := tx.Unsigned.(*txs.CreateChainTx)
	if !ok {
		return fmt.Errorf("%q is not a blockchain", args.BlockchainID)
	}
	reply.SubnetID = chain.SubnetID
	return nil
}

// Validates answers the blockchains a subnet validates, in the node's
// order (newest first, as getBlockchains lists a subnet's chains).
func (p *Platform) Validates(r *http.Request, args *platformvm.ValidatesArgs, reply *platformvm.ValidatesResponse) error {
	ctx := r.Context()
	if args.SubnetID == constants.PrimaryNetworkID {
		for _, g := range p.genesisChains() {
			reply.BlockchainIDs = append(reply.BlockchainIDs, g.id)
		}
		return nil
	}
	tx, err := p.parsedTx(ctx, args.SubnetID, "problem retrieving subnet")
	if err != nil {
		return err
	}
	if _, ok := tx.Unsigned.(*txs.CreateSubnetTx); !ok {
		return fmt.Errorf("%q is not a subnet", args.SubnetID)
	}
	chains, err := p.store.Blockchains(ctx)
	if err != nil {
		return storeError(fmt.Sprintf("problem retrieving chains for subnet %q", args.SubnetID), err)
	}
	reply.BlockchainIDs = []ids.ID{}
	for i := len(chains) - 1; i >= 0; i-- {
		if chains[i].SubnetID == args.SubnetID {
			reply.BlockchainIDs = append(reply.BlockchainIDs, chains[i].ID)
		}
	}
	return nil
}
