package api

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/cchain"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/utxo"
	"github.com/avaindex/avaindex/internal/xchain"
)

// Rendering of the primary-network transactions (transactions.go): a stored
// tx, described by its chain package, with the UTXOs the store holds of it
// and the details of its assets, in the wire types of its chain.

// pTx returns the stored P-chain tx id, or the genesis validator tx id
// (in no block's txs), with its description.
func (a *API) pTx(ctx context.Context, id ids.ID) (*store.TxRecord, *pchain.TxDescription, error) {
	rec, err := a.store.PTx(ctx, id)
	if errors.Is(err, derrors.NotFound) {
		return a.genesisPTx(ctx, id)
	}
	if err != nil {
		return nil, nil, err
	}
	d, err := pchain.DescribeTx(rec.Bytes, rec.Timestamp)
	if err != nil {
		return nil, nil, fmt.Errorf("stored P-chain tx %s: %w", id, err)
	}
	return rec, d, nil
}

// genesisValidators are the P-chain's genesis validator txs, read once
// from the genesis of the stored height-0 block.
type genesisValidators struct {
	mu     sync.Mutex
	loaded bool
	block  ids.ID
	time   time.Time
	txs    map[ids.ID]*txs.Tx
	// supply is the primary network's supply at the genesis; known is
	// false when no genesis is known for the stored block.
	supply uint64
	known  bool
}

// loadedGenesis returns the genesis validators, read from the genesis of
// the stored height-0 block the first time; what it returns does not change.
func (a *API) loadedGenesis(ctx context.Context) (*genesisValidators, error) {
	g := &a.genesis
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.loaded {
		b0, err := a.store.BlockSummaryByHeight(ctx, store.BlockQuery{Chain: internal.PChain}, 0)
		if err != nil {
			return nil, err
		}
		gen, ok, err := pchain.GenesisFor(b0.ParentID)
		if err != nil {
			return nil, err
		}
		g.loaded, g.block, g.txs = true, b0.ID, map[ids.ID]*txs.Tx{}
		if ok {
			g.time = time.Unix(int64(gen.Timestamp), 0).UTC()
			g.supply, g.known = gen.InitialSupply, true
			for _, v := range gen.Validators {
				g.txs[v.ID()] = v
			}
		}
	}
	return g, nil
}

// genesisPTx returns the genesis validator tx id as a tx of block 0 at the
// genesis time; derrors.NotFound when there is no such tx.
func (a *API) genesisPTx(ctx context.Context, id ids.ID) (*store.TxRecord, *pchain.TxDescription, error) {
	g, err := a.loadedGenesis(ctx)
	if err != nil {
		return nil, nil, err
	}
	tx, ok := g.txs[id]
	if !ok {
		return nil, nil, derrors.NotFound
	}
	d, err := pchain.DescribeParsedTx(tx, time.Time{})
	if err != nil {
		return nil, nil, err
	}
	return &store.TxRecord{ID: id, Type: d.Type, Bytes: tx.Bytes(), Height: 0, Index: -1, BlockID: g.block, Timestamp: g.time}, d, nil
}

// pChainTxTypes are the schema's PChainTransactionType values but UNKNOWN.
var pChainTxTypes = []string{
	"AddValidatorTx", "AddSubnetValidatorTx", "AddDelegatorTx", "CreateChainTx", "CreateSubnetTx", "ImportTx",
	"ExportTx", "AdvanceTimeTx", "RewardValidatorTx", "RemoveSubnetValidatorTx", "TransformSubnetTx",
	"AddPermissionlessValidatorTx", "AddPermissionlessDelegatorTx", "BaseTx", "TransferSubnetOwnershipTx",
	"ConvertSubnetToL1Tx", "RegisterL1ValidatorTx", "SetL1ValidatorWeightTx", "DisableL1ValidatorTx",
	"IncreaseL1ValidatorBalanceTx",
}

// xChainTxTypes are the schema's XChainTransactionType values but UNKNOWN.
var xChainTxTypes = []string{"BaseTx", "CreateAssetTx", "OperationTx", "ImportTx", "ExportTx"}

// primaryNetworkTxTypes are the schema's PrimaryNetworkTxType values: the
// txTypes filter of the lists.
var primaryNetworkTxTypes = append(append([]string(nil), pChainTxTypes...), "UNKNOWN", "CreateAssetTx", "OperationTx")

// enumOr returns v when it is one of values, and "UNKNOWN" otherwise: the
// schemas' enums are closed.
func enumOr(v string, values []string) string {
	if slices.Contains(values, v) {
		return v
	}
	return "UNKNOWN"
}

// stakers reads staker records for one rendering, each once.
type stakers struct {
	a    *API
	ctx  context.Context
	seen map[ids.ID]*store.StakerRecord
}

// get returns the staker added by txID, nil when there is none.
func (s *stakers) get(txID ids.ID) (*store.StakerRecord, error) {
	if r, ok := s.seen[txID]; ok {
		return r, nil
	}
	r, err := s.a.store.Staker(s.ctx, txID)
	if errors.Is(err, derrors.NotFound) {
		r, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	if s.seen == nil {
		s.seen = map[ids.ID]*store.StakerRecord{}
	}
	s.seen[txID] = r
	return r, nil
}

// renderP renders the P-chain tx rec described by d, with its UTXOs us
// (TxsUTXOs reads a page's at once).
func (a *API) renderP(ctx context.Context, rec *store.TxRecord, d *pchain.TxDescription, us *store.TxUTXOs) (*PChainTransaction, error) {
	var err error
	out := &PChainTransaction{
		TxHash:         cb58ID(rec.ID),
		TxType:         enumOr(d.Type, pChainTxTypes),
		BlockTimestamp: unixOrZero(rec.Timestamp),
		BlockNumber:    strconv.FormatUint(rec.Height, 10),
		BlockHash:      cb58ID(rec.BlockID),
		ConsumedUtxos:  []PChainUtxo{},
		EmittedUtxos:   []PChainUtxo{},
	}
	if len(d.Memo) > 0 {
		out.Memo = hex0x(d.Memo)
	}
	st := &stakers{a: a, ctx: ctx}
	value := map[ids.ID]uint64{}
	// Reward UTXOs are typed as the rewards list types them.
	var rewards []ids.ID
	for _, u := range us.Emitted {
		if u.Kind == pchain.KindReward {
			rewards = append(rewards, u.ID)
		}
	}
	var rewardTypes map[ids.ID]string
	if len(rewards) > 0 {
		if rewardTypes, err = a.store.RewardTypes(ctx, rewards); err != nil {
			return nil, err
		}
	}
	// A reward UTXO of a staker the store does not have (none in a store
	// indexed from the genesis) is typed as a committed validator's.
	unknown := map[ids.ID][]ids.ID{}
	for _, id := range rewards {
		if _, ok := rewardTypes[id]; !ok {
			for _, u := range us.Emitted {
				if u.ID == id {
					unknown[u.TxID] = append(unknown[u.TxID], id)
				}
			}
		}
	}
	for _, sibs := range unknown {
		types := pchain.RewardTypes(pchain.RewardFacts{Kind: pchain.KindValidator, Committed: true, N: len(sibs)})
		for i, id := range sibs {
			rewardTypes[id] = types[i]
		}
	}
	for _, u := range us.Emitted {
		pu, err := a.pUTXO(ctx, u, false, st)
		if err != nil {
			return nil, err
		}
		if u.Kind == pchain.KindReward {
			pu.RewardType = rewardTypes[u.ID]
		}
		out.EmittedUtxos = append(out.EmittedUtxos, pu)
		value[u.AssetID] += u.Amount
	}
	for _, u := range inInputOrder(us.Consumed, d.Inputs) {
		pu, err := a.pUTXO(ctx, u, true, st)
		if err != nil {
			return nil, err
		}
		out.ConsumedUtxos = append(out.ConsumedUtxos, pu)
	}

	// Burned: what the inputs bring in beyond every output the tx makes
	// (its own, staked and exported), per asset.
	burned := map[ids.ID]uint64{}
	for asset, in := range d.In {
		if outs := d.Out[asset] + d.Staked[asset] + d.Exported[asset]; in > outs {
			burned[asset] = in - outs
		}
	}
	l1 := map[ids.ID]uint64{a.network.AVAXAssetID: d.L1Balance}
	for _, f := range []struct {
		dst  *[]AssetAmount
		sums map[ids.ID]uint64
	}{{&out.Value, value}, {&out.AmountBurned, burned}, {&out.AmountStaked, d.Staked}, {&out.AmountL1ValidatorBalanceBurned, l1}} {
		if *f.dst, err = a.assetAmounts(ctx, f.sums); err != nil {
			return nil, err
		}
	}
	if d.SourceChain != ids.Empty || d.DestinationChain != ids.Empty {
		out.SourceChain, out.DestinationChain = cb58ID(d.SourceChain), cb58ID(d.DestinationChain)
	}
	if d.SubnetID != ids.Empty {
		out.SubnetID = cb58ID(d.SubnetID)
	}
	if d.NodeID != ids.EmptyNodeID {
		out.NodeID = d.NodeID.String()
	}
	if d.Staker != nil {
		s, err := st.get(rec.ID)
		if err != nil {
			return nil, err
		}
		a.stakingFields(out, d.Staker, s)
	}
	if d.RewardedStaker != ids.Empty {
		out.StakingTxHash = cb58ID(d.RewardedStaker)
	}
	if o := d.SubnetOwner; o != nil {
		out.SubnetOwnershipInfo = &SubnetOwnershipInfo{Locktime: o.Locktime, Threshold: o.Threshold, Addresses: a.bech32(o.Addresses)}
	}
	if c := d.Chain; c != nil {
		out.BlockchainInfo = &BlockchainInfo{ChainName: c.Name, VMID: cb58ID(c.VMID), GenesisData: genesisData(c.Genesis)}
	}
	if d.Type == "ConvertSubnetToL1Tx" {
		addr := hex0x(d.ManagerAddress)
		if len(d.ManagerAddress) == common.AddressLength {
			addr = common.BytesToAddress(d.ManagerAddress).Hex()
		}
		out.L1ValidatorManagerDetails = &L1ValidatorManagerDetails{BlockchainID: cb58ID(d.ManagerChainID), ContractAddress: addr}
	}
	if out.L1ValidatorDetails, err = a.l1Details(ctx, rec, d, us); err != nil {
		return nil, err
	}
	return out, nil
}

// stakingFields sets the fields of a tx that adds staker s (as the tx
// describes it), whose record is r (nil when the store has none).
func (a *API) stakingFields(out *PChainTransaction, s *pchain.Staker, r *store.StakerRecord) {
	start, end := s.StartTime, s.EndTime
	if r != nil {
		// The store's start is when the staker entered the current set:
		// from Durango on, its acceptance, not the start the tx names.
		start = r.StartTime
	}
	out.StartTimestamp, out.EndTimestamp = &start, &end
	out.NodeID, out.SubnetID = s.NodeID.String(), cb58ID(s.SubnetID)
	switch s.Kind {
	case pchain.KindValidator:
		out.DelegationFeePercent = strconv.FormatFloat(float64(s.DelegationShares)/10_000, 'f', 4, 64)
		if s.ValidationRewardOwner != nil {
			out.RewardAddresses = a.bech32(s.ValidationRewardOwner.Addresses)
		}
	case pchain.KindDelegator:
		if s.RewardOwner != nil {
			out.RewardAddresses = a.bech32(s.RewardOwner.Addresses)
		}
	}
	if len(s.PublicKey) > 0 {
		out.BlsCredentials = &BlsCredentials{PublicKey: hex0x(s.PublicKey), ProofOfPossession: hex0x(s.ProofOfPossession)}
	}
	if r == nil || s.Kind == pchain.KindSubnetValidator {
		return
	}
	if r.PotentialReward != nil {
		out.EstimatedReward = strconv.FormatUint(*r.PotentialReward, 10)
	}
	if r.RemovedTxID != ids.Empty {
		out.RewardTxHash = cb58ID(r.RemovedTxID)
	}
}

// l1Details describes the L1 validators the tx rec added or changed, as it
// left them.
//
// remainingBalance is the balance deposited since the validator was last
// activated, up to and including this tx: the node's balance at that
// moment is that minus the fees accrued since activation, which only a
// replay of the fee state from the Etna activation could tell; avaindex
// keeps the fee state only at its tip (pchain.L1Fees). It is exact for the
// txs that add a validator and for those that end its balance (0).
func (a *API) l1Details(ctx context.Context, rec *store.TxRecord, d *pchain.TxDescription, us *store.TxUTXOs) ([]L1ValidatorDetails, error) {
	events, err := a.store.L1ValidatorEvents(ctx, rec.ID)
	if err != nil {
		return nil, err
	}
	added := map[ids.ID]pchain.L1ValidatorAdded{}
	var order []ids.ID
	for _, v := range d.L1Validators {
		added[v.ValidationID] = v
		order = append(order, v.ValidationID)
	}
	var others []ids.ID
	for vid := range events {
		if _, ok := added[vid]; !ok {
			others = append(others, vid)
		}
	}
	slices.SortFunc(others, func(x, y ids.ID) int { return x.Compare(y) })
	order = append(order, others...)

	// A refund of the remaining balance is emitted after the tx's outputs.
	var refund uint64
	for _, u := range us.Emitted {
		if int(u.OutputIndex) >= d.Outs && u.Kind == pchain.KindRegular {
			refund += u.Amount
		}
	}
	var out []L1ValidatorDetails
	for _, vid := range order {
		det := L1ValidatorDetails{ValidationID: cb58ID(vid), ValidationIDHex: hex0x(vid[:])}
		evs := events[vid]
		v, ok := pchain.FoldL1(evs)
		add, isAdd := added[vid]
		switch {
		case ok:
			last := evs[len(evs)-1]
			det.NodeID, det.SubnetID, det.Weight, det.RemainingBalance = v.NodeID.String(), cb58ID(v.SubnetID), v.Weight, v.DepositedBalance
			switch {
			case last.Kind == pchain.L1Convert || last.Kind == pchain.L1Register || last.Kind == pchain.L1IncreaseBalance:
				det.BalanceChange = ptr(int64(last.Balance))
			case last.Kind == pchain.L1Disable || (last.Kind == pchain.L1SetWeight && last.Weight == 0):
				det.BalanceChange = ptr(-int64(refund))
			}
		case isAdd:
			// Its events are not indexed: what the tx says.
			det.NodeID, det.SubnetID, det.Weight, det.RemainingBalance = add.NodeID.String(), cb58ID(add.SubnetID), add.Weight, add.Balance
			det.BalanceChange = ptr(int64(add.Balance))
		default:
			continue
		}
		if isAdd {
			det.BlsCredentials = &BlsCredentials{PublicKey: hex0x(add.PublicKey), ProofOfPossession: hex0x(add.ProofOfPossession)}
		}
		out = append(out, det)
	}
	return out, nil
}

// pUTXO renders a UTXO a P-chain tx consumed or emitted.
func (a *API) pUTXO(ctx context.Context, u *store.UTXORow, spent bool, st *stakers) (PChainUtxo, error) {
	info, err := a.outputInfo(u)
	if err != nil {
		return PChainUtxo{}, err
	}
	asset, err := a.assetAmount(ctx, u.AssetID, u.Amount)
	if err != nil {
		return PChainUtxo{}, err
	}
	p := PChainUtxo{
		Addresses:         a.bech32(info.Addresses),
		Asset:             asset,
		CreatedOnChainID:  cb58ID(a.createdOn(u)),
		ConsumedOnChainID: cb58ID(a.consumedOn(u, a.network.PChainID, spent)),
		UtxoID:            cb58ID(u.ID),
		Amount:            asset.Amount,
		AssetID:           asset.AssetID,
		OutputIndex:       u.OutputIndex,
		TxHash:            cb58ID(creatorOf(u)),
		UtxoType:          "TRANSFER",
	}
	if u.CreatedKnown {
		p.BlockNumber, p.BlockTimestamp = strconv.FormatUint(u.CreatedHeight, 10), u.CreatedTime
	}
	if len(u.Bytes) > 0 {
		p.UtxoBytes = hex0x(u.Bytes)
		p.PlatformLocktime, p.Threshold = ptr(info.Locktime), ptr(info.Threshold)
	}
	if u.ConsumedTxID != ids.Empty {
		p.ConsumingTxHash = cb58ID(u.ConsumedTxID)
		p.ConsumingBlockNumber, p.ConsumingBlockTimestamp = strconv.FormatUint(u.ConsumedHeight, 10), ptr(u.ConsumedTime)
	}
	if info.StakeableLocktime != 0 {
		p.StakeableLocktime = ptr(info.StakeableLocktime)
		p.UtxoType = "STAKE"
	}
	if u.Chain == internal.PChain {
		p.Staked = ptr(u.Staked)
	}
	if u.Kind == pchain.KindStake && u.Chain == internal.PChain {
		p.UtxoType = "STAKE"
		s, err := st.get(u.TxID)
		if err != nil {
			return PChainUtxo{}, err
		}
		if s != nil {
			p.UtxoStartTimestamp, p.UtxoEndTimestamp = ptr(s.StartTime), ptr(s.EndTime)
		}
	}
	return p, nil
}

// xUTXO renders a UTXO an X-chain or C-chain tx consumed or emitted on
// chain here, with the credentials that spent it.
func (a *API) xUTXO(ctx context.Context, u *store.UTXORow, here ids.ID, spent bool, creds []utxo.Credential) (Utxo, error) {
	info, err := a.outputInfo(u)
	if err != nil {
		return Utxo{}, err
	}
	asset, err := a.assetAmount(ctx, u.AssetID, u.Amount)
	if err != nil {
		return Utxo{}, err
	}
	x := Utxo{
		Addresses:         a.bech32(info.Addresses),
		Asset:             asset,
		ConsumedOnChainID: cb58ID(a.consumedOn(u, here, spent)),
		CreatedOnChainID:  cb58ID(a.createdOn(u)),
		UtxoID:            cb58ID(u.ID),
		CreationTxHash:    cb58ID(creatorOf(u)),
		GroupID:           info.GroupID,
		Locktime:          info.Locktime,
		OutputIndex:       strconv.FormatUint(uint64(u.OutputIndex), 10),
		Threshold:         info.Threshold,
		Timestamp:         u.CreatedTime,
		UtxoType:          "transfer",
	}
	if info.Mint {
		x.UtxoType = "mint"
	}
	if len(u.Bytes) > 0 {
		x.UtxoBytes = hex0x(u.Bytes)
	}
	if len(info.Payload) > 0 {
		x.Payload = hex0x(info.Payload)
	}
	if u.ConsumedTxID != ids.Empty {
		x.ConsumingTxHash, x.ConsumingTxTimestamp = cb58ID(u.ConsumedTxID), ptr(u.ConsumedTime)
	}
	x.Credentials = wireCredentials(creds)
	return x, nil
}

func wireCredentials(creds []utxo.Credential) []UtxoCredential {
	out := make([]UtxoCredential, 0, len(creds))
	for _, c := range creds {
		w := UtxoCredential{Signature: hex0x(c.Signature)}
		if len(c.PublicKey) > 0 {
			w.PublicKey = hex0x(c.PublicKey)
		}
		out = append(out, w)
	}
	return out
}

// outputInfo decodes a UTXO in the encoding of the chain that created it;
// a UTXO whose bytes are not indexed (an import whose export is not) has
// only its asset and amount.
func (a *API) outputInfo(u *store.UTXORow) (*utxo.Info, error) {
	if len(u.Bytes) == 0 {
		return &utxo.Info{AssetID: u.AssetID, Amount: u.Amount}, nil
	}
	var (
		info *utxo.Info
		err  error
	)
	switch u.Chain {
	case internal.PChain:
		info, err = pchain.DescribeUTXO(u.Bytes)
	case internal.XChain:
		info, err = xchain.DescribeUTXO(u.Bytes)
	default:
		info, err = cchain.DescribeUTXO(u.Bytes)
	}
	if err != nil {
		return nil, fmt.Errorf("stored UTXO %s: %w", u.ID, err)
	}
	return info, nil
}

// chainID is the blockchain id of one of the network's primary chains.
func (a *API) chainID(c internal.Chain) ids.ID {
	switch c {
	case internal.PChain:
		return a.network.PChainID
	case internal.XChain:
		return a.network.XChainID
	}
	return a.network.CChainID
}

// createdOn is the chain that created u.
func (a *API) createdOn(u *store.UTXORow) ids.ID {
	if u.Chain == "" {
		return u.SourceChain
	}
	return a.chainID(u.Chain)
}

// consumedOn is the chain that consumes (or will consume) u: the chain
// here when the tx rendered there spends it, the destination of a UTXO it
// exports, here otherwise. (The P-chain's id is ids.Empty: PeerChain
// alone cannot tell.)
func (a *API) consumedOn(u *store.UTXORow, here ids.ID, spent bool) ids.ID {
	if !spent && u.Kind == exportedKind {
		return u.PeerChain
	}
	return here
}

// exportedKind is the kind of the UTXOs a chain exports, on every chain
// (pchain.KindExported, xchain.KindExported, the C-chain's).
const exportedKind = "exported"

// creatorOf is the tx that created u.
func creatorOf(u *store.UTXORow) ids.ID {
	if u.CreatedKnown {
		return u.CreatedTxID
	}
	return u.TxID
}

// inInputOrder orders consumed UTXOs as the tx's inputs spend them; any
// not among inputs follow.
func inInputOrder(rows []*store.UTXORow, inputs []ids.ID) []*store.UTXORow {
	byID := make(map[ids.ID]*store.UTXORow, len(rows))
	for _, r := range rows {
		byID[r.ID] = r
	}
	out := make([]*store.UTXORow, 0, len(rows))
	for _, id := range inputs {
		if r, ok := byID[id]; ok {
			out = append(out, r)
			delete(byID, id)
		}
	}
	for _, r := range rows {
		if _, ok := byID[r.ID]; ok {
			out = append(out, r)
		}
	}
	return out
}

// renderX renders the X-chain tx rec with its UTXOs us; a DAG tx with the
// vertices that carried it (see dagVertices).
func (a *API) renderX(ctx context.Context, rec *store.TxRecord, vertices map[ids.ID][]store.Vertex, us *store.TxUTXOs) (*XChainTransaction, error) {
	d, err := xchain.DescribeTx(rec.Bytes)
	if err != nil {
		return nil, fmt.Errorf("stored X-chain tx %s: %w", rec.ID, err)
	}
	out := &XChainTransaction{
		TxHash:        cb58ID(rec.ID),
		ChainFormat:   "linear",
		Timestamp:     unixOrZero(rec.Timestamp),
		TxType:        enumOr(d.Type, xChainTxTypes),
		ConsumedUtxos: []Utxo{},
		EmittedUtxos:  []Utxo{},
	}
	if len(d.Memo) > 0 {
		out.Memo = hex0x(d.Memo)
	}
	if rec.DAG {
		vs := []TransactionVertex{}
		for _, v := range vertices[rec.ID] {
			vs = append(vs, TransactionVertex{Hash: cb58ID(v.ID), Height: v.Height, Timestamp: v.Timestamp.Unix()})
		}
		out.ChainFormat, out.Vertices = "non-linear", &vs
	} else {
		out.BlockHeight, out.BlockHash = ptr(rec.Height), cb58ID(rec.BlockID)
	}
	x := a.network.XChainID
	for _, u := range us.Emitted {
		xu, err := a.xUTXO(ctx, u, x, false, nil)
		if err != nil {
			return nil, err
		}
		out.EmittedUtxos = append(out.EmittedUtxos, xu)
	}
	for _, u := range inInputOrder(us.Consumed, d.Inputs) {
		xu, err := a.xUTXO(ctx, u, x, true, d.Credentials[u.ID])
		if err != nil {
			return nil, err
		}
		out.ConsumedUtxos = append(out.ConsumedUtxos, xu)
	}
	if out.AmountUnlocked, err = a.assetAmounts(ctx, d.In); err != nil {
		return nil, err
	}
	if out.AmountCreated, err = a.assetAmounts(ctx, d.Out); err != nil {
		return nil, err
	}
	if d.SourceChain != ids.Empty || d.DestinationChain != ids.Empty {
		out.SourceChain, out.DestinationChain = cb58ID(d.SourceChain), cb58ID(d.DestinationChain)
	}
	if d.Asset != nil {
		info := describedAsset(d.Asset, unixOrZero(rec.Timestamp))
		out.AssetCreated = &XChainAssetDetails{AssetID: cb58ID(rec.ID), Name: info.Name, Symbol: info.Symbol,
			Denomination: info.Denomination, Type: info.Type, CreatedAtTimestamp: info.CreatedAt, Cap: info.Cap}
	}
	return out, nil
}

// dagVertices returns the vertices that carried the DAG txs among recs
// (store.TxVertices: by height, then X/vtx index), read at once. Empty for
// a tx whose vertices are not indexed: the node's X/vtx index not
// mirrored, or not decoded yet.
func (a *API) dagVertices(ctx context.Context, recs ...*store.TxRecord) (map[ids.ID][]store.Vertex, error) {
	var dag []ids.ID
	for _, rec := range recs {
		if rec.DAG {
			dag = append(dag, rec.ID)
		}
	}
	if len(dag) == 0 {
		return nil, nil
	}
	return a.store.TxVertices(ctx, dag)
}

// renderC renders the C-chain atomic tx rec as a CChainExportTransaction or
// CChainImportTransaction.
func (a *API) renderC(ctx context.Context, rec *store.TxRecord) (any, error) {
	d, err := cchain.DescribeTx(rec.Bytes)
	if err != nil {
		return nil, fmt.Errorf("stored C-chain tx %s: %w", rec.ID, err)
	}
	us, err := a.store.TxUTXOs(ctx, internal.CChain, rec.ID)
	if err != nil {
		return nil, err
	}
	unlocked, err := a.assetAmounts(ctx, d.In)
	if err != nil {
		return nil, err
	}
	created, err := a.assetAmounts(ctx, d.Out)
	if err != nil {
		return nil, err
	}
	// Atomic txs carry no memo; the block hash is the EVM's.
	hash, ts := hex0x(rec.BlockID[:]), unixOrZero(rec.Timestamp)
	c := a.network.CChainID
	if d.Type == "ExportTx" {
		out := &CChainExportTransaction{TxHash: cb58ID(rec.ID), BlockHeight: rec.Height, BlockHash: hash, Timestamp: ts,
			AmountUnlocked: unlocked, AmountCreated: created, SourceChain: cb58ID(d.SourceChain),
			DestinationChain: cb58ID(d.DestinationChain), TxType: d.Type, EVMInputs: []EVMInput{}, EmittedUtxos: []Utxo{}}
		for _, in := range d.EVMInputs {
			am, err := a.assetAmount(ctx, in.AssetID, in.Amount)
			if err != nil {
				return nil, err
			}
			out.EVMInputs = append(out.EVMInputs, EVMInput{FromAddress: in.Address.Hex(), Asset: am, Credentials: wireCredentials(in.Credentials)})
		}
		for _, u := range us.Emitted {
			xu, err := a.xUTXO(ctx, u, c, false, nil)
			if err != nil {
				return nil, err
			}
			out.EmittedUtxos = append(out.EmittedUtxos, xu)
		}
		return out, nil
	}
	out := &CChainImportTransaction{TxHash: cb58ID(rec.ID), BlockHeight: rec.Height, BlockHash: hash, Timestamp: ts,
		AmountUnlocked: unlocked, AmountCreated: created, SourceChain: cb58ID(d.SourceChain),
		DestinationChain: cb58ID(d.DestinationChain), TxType: d.Type, EVMOutputs: []EVMOutput{}, ConsumedUtxos: []Utxo{}}
	for _, o := range d.EVMOutputs {
		am, err := a.assetAmount(ctx, o.AssetID, o.Amount)
		if err != nil {
			return nil, err
		}
		out.EVMOutputs = append(out.EVMOutputs, EVMOutput{ToAddress: o.Address.Hex(), Asset: am})
	}
	for _, u := range inInputOrder(us.Consumed, d.Inputs) {
		xu, err := a.xUTXO(ctx, u, c, true, d.Credentials[u.ID])
		if err != nil {
			return nil, err
		}
		out.ConsumedUtxos = append(out.ConsumedUtxos, xu)
	}
	return out, nil
}

// bech32 formats addresses as the Data API does: bare bech32 with the
// network's prefix, no chain prefix. Never nil.
func (a *API) bech32(addrs []ids.ShortID) []string {
	out := make([]string, 0, len(addrs))
	for _, ad := range addrs {
		s, err := address.FormatBech32(a.network.HRP, ad[:])
		if err != nil {
			s = ad.String() // an HRP bech32 refuses; cannot happen for a network's
		}
		out = append(out, s)
	}
	return out
}

func hex0x(b []byte) string { return "0x" + hex.EncodeToString(b) }

func ptr[T any](v T) *T { return &v }

// unixOrZero is t in unix seconds, 0 for the zero time.
func unixOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}
