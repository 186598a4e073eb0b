package tests

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/api"
	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/atomic"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/bls/signer/localsigner"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/utils/formatting"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/utils/set"
	avmtxs "github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/block"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/chain/x/builder"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// What the Data API's transaction endpoints answer, decoded as far as the
// tests check it. encoding/json matches the names case-insensitively.
type (
	wAsset struct {
		AssetID, Name, Symbol string
		Denomination          int
		Type, Amount          string
	}
	wUTXO struct {
		UtxoID, TxHash, CreationTxHash       string
		Addresses                            []string
		Asset                                wAsset
		Amount                               string
		CreatedOnChainID, ConsumedOnChainID  string
		ConsumingTxHash                      string
		OutputIndex                          json.RawMessage
		Staked                               *bool
		UtxoType, RewardType                 string
		BlockNumber                          string
		UtxoStartTimestamp, UtxoEndTimestamp *uint64
		Credentials                          []struct{ Signature, PublicKey string }
		Threshold                            *uint32
	}
	wPTx struct {
		TxHash, TxType, BlockNumber, BlockHash       string
		BlockTimestamp                               int64
		ConsumedUtxos, EmittedUtxos                  []wUTXO
		SourceChain, DestinationChain                string
		Value, AmountBurned, AmountStaked            []wAsset
		AmountL1ValidatorBalanceBurned               []wAsset
		StartTimestamp, EndTimestamp                 *uint64
		DelegationFeePercent, NodeID, SubnetID       string
		EstimatedReward, RewardTxHash, StakingTxHash string
		RewardAddresses                              []string
		SubnetOwnershipInfo                          *struct {
			Locktime  uint64
			Threshold uint32
			Addresses []string
		}
		BlsCredentials *struct{ PublicKey, ProofOfPossession string }
		BlockchainInfo *struct {
			ChainName, VMID string
			GenesisData     json.RawMessage
		}
		L1ValidatorManagerDetails *struct{ BlockchainID, ContractAddress string }
		L1ValidatorDetails        []struct {
			ValidationID, ValidationIDHex, NodeID, SubnetID string
			Weight, RemainingBalance                        uint64
			BalanceChange                                   *int64
		}
	}
	wXTx struct {
		TxHash, ChainFormat, TxType, Memo string
		Timestamp                         int64
		BlockHeight                       *uint64
		BlockHash                         string
		ConsumedUtxos, EmittedUtxos       []wUTXO
		AmountUnlocked, AmountCreated     []wAsset
		SourceChain, DestinationChain     string
		AssetCreated                      *struct {
			AssetID, Name, Symbol string
			Denomination          int
			Type, Cap             string
			CreatedAtTimestamp    int64
		}
	}
	wCTx struct {
		TxHash, TxType, BlockHash     string
		BlockHeight                   uint64
		Timestamp                     int64
		SourceChain, DestinationChain string
		AmountUnlocked, AmountCreated []wAsset
		EVMInputs                     []struct {
			FromAddress string
			Asset       wAsset
			Credentials []struct{ Signature, PublicKey string }
		}
		EVMOutputs []struct {
			ToAddress string
			Asset     wAsset
		}
		ConsumedUtxos, EmittedUtxos []wUTXO
	}
)

// blockRef is where the node says a tx was accepted.
type blockRef struct {
	height uint64
	id     string
	time   int64
}

// nodeView is what the node tells of its chains, read once for the tests.
type nodeView struct {
	pTip, xTip, cTip uint64
	pBlockOf         map[ids.ID]blockRef
	xBlockOf         map[ids.ID]blockRef
	// xTxs are the X-chain's txs in chain order, and xTxAssets the assets
	// each one moves (spends, creates, imports or exports).
	xTxs      []ids.ID
	xTxAssets map[ids.ID]set.Set[ids.ID]
	xTxType   map[ids.ID]string
	// xBlocks are the X-chain's block bytes by height.
	xBlocks [][]byte
}

func readNodeView(t *testing.T, n *testnet.Network) *nodeView {
	t.Helper()
	ctx := context.Background()
	v := &nodeView{pBlockOf: map[ids.ID]blockRef{}, xBlockOf: map[ids.ID]blockRef{}}
	pc, xc := n.PClient(), n.XClient()
	var err error
	if v.pTip, err = pc.GetHeight(ctx); err != nil {
		t.Fatal(err)
	}
	for h := uint64(0); h <= v.pTip; h++ {
		b, err := pc.GetBlockByHeight(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := block.Parse(block.Codec, b)
		if err != nil {
			t.Fatal(err)
		}
		ref := blockRef{height: h, id: blk.ID().String()}
		if tb, ok := blk.(interface{ Timestamp() time.Time }); ok {
			ref.time = tb.Timestamp().Unix()
		}
		for _, tx := range blk.Txs() {
			v.pBlockOf[tx.ID()] = ref
		}
	}
	if v.xTip, err = xc.GetHeight(ctx); err != nil {
		t.Fatal(err)
	}
	for h := uint64(0); h <= v.xTip; h++ {
		b, err := xc.GetBlockByHeight(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := builder.Parser.ParseBlock(b)
		if err != nil {
			t.Fatal(err)
		}
		v.xBlocks = append(v.xBlocks, b)
		for _, tx := range blk.Txs() {
			v.xBlockOf[tx.ID()] = blockRef{height: h, id: blk.ID().String(), time: blk.Timestamp().Unix()}
			v.xTxs = append(v.xTxs, tx.ID())
			if v.xTxAssets == nil {
				v.xTxAssets, v.xTxType = map[ids.ID]set.Set[ids.ID]{}, map[ids.ID]string{}
			}
			v.xTxAssets[tx.ID()], v.xTxType[tx.ID()] = xTxAssets(tx)
		}
	}
	var hexTip string
	if err := n.Call(ctx, "/ext/bc/C/rpc", "eth_blockNumber", []any{}, &hexTip); err != nil {
		t.Fatal(err)
	}
	if v.cTip, err = strconv.ParseUint(strings.TrimPrefix(hexTip, "0x"), 16, 64); err != nil {
		t.Fatal(err)
	}
	return v
}

// longStakers is a validator and a delegator that stay current for the
// whole test, rewarded to a fresh key.
type longStakers struct {
	key              *secp256k1.PrivateKey
	nodeID           ids.NodeID
	validator        ids.ID
	delegator        ids.ID
	blsKey, blsProof []byte
}

func issueLongStakers(t *testing.T, n *testnet.Network) *longStakers {
	t.Helper()
	ctx := context.Background()
	key, err := testnet.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	nodeID, err := testnet.RandomNodeID()
	if err != nil {
		t.Fatal(err)
	}
	sk, err := localsigner.New()
	if err != nil {
		t.Fatal(err)
	}
	pop, err := signer.NewProofOfPossession(sk)
	if err != nil {
		t.Fatal(err)
	}
	ls := &longStakers{key: key, nodeID: nodeID, blsKey: pop.PublicKey[:], blsProof: pop.ProofOfPossession[:]}
	owner := &secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{key.Address()}}
	now := time.Now()
	end := uint64(now.Add(time.Hour).Unix())
	err = n.WithWallet(ctx, primary.WalletConfig{}, func(w *primary.Wallet) error {
		vtx, err := w.P().IssueAddPermissionlessValidatorTx(&txs.SubnetValidator{
			Validator: txs.Validator{NodeID: nodeID, Start: uint64(now.Unix()), End: end, Wght: n.MinValidatorStake},
			Subnet:    constants.PrimaryNetworkID,
		}, pop, n.AVAXAssetID, owner, owner, testnet.DelegationShares)
		if err != nil {
			return err
		}
		ls.validator = vtx.ID()
		dtx, err := w.P().IssueAddPermissionlessDelegatorTx(&txs.SubnetValidator{
			Validator: txs.Validator{NodeID: nodeID, Start: uint64(now.Unix()), End: end, Wght: n.MinDelegatorStake},
			Subnet:    constants.PrimaryNetworkID,
		}, n.AVAXAssetID, owner)
		if err != nil {
			return err
		}
		ls.delegator = dtx.ID()
		return nil
	})
	if err != nil {
		t.Fatalf("issuing the long-lived staker: %v", err)
	}
	return ls
}

// sendAsset sends amount of assetID to a fresh key on the X-chain.
func sendAsset(t *testing.T, n *testnet.Network, assetID ids.ID, amount uint64) ids.ID {
	t.Helper()
	key, err := testnet.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	var id ids.ID
	err = n.WithWallet(context.Background(), primary.WalletConfig{}, func(w *primary.Wallet) error {
		tx, err := w.X().IssueBaseTx([]*avax.TransferableOutput{{Asset: avax.Asset{ID: assetID},
			Out: &secp256k1fx.TransferOutput{Amt: amount, OutputOwners: secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{key.Address()}}}}})
		if err != nil {
			return err
		}
		id = tx.ID()
		return nil
	})
	if err != nil {
		t.Fatalf("sending the asset: %v", err)
	}
	return id
}

// TestPrimaryNetworkTxsDataAPI checks the Data API's transaction endpoints
// (getTxByHash on P, X and C, listAssetTransactions,
// listActivePrimaryNetworkStakingTransactions) and X- and C-chain blocks on
// a network where every tx type was issued, against what the node says.
func TestPrimaryNetworkTxsDataAPI(t *testing.T) {
	n, issued := issuedNetwork(t)
	long := issueLongStakers(t, n)
	transfer := sendAsset(t, n, issued.AssetID, 5)
	view := readNodeView(t, n)
	doc := openapitest.Default(t)

	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn, "--network-alias", "testnet")
		st, err := store.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		waitCursor(t, st, internal.PChain, view.pTip)
		waitCursor(t, st, internal.XChain, view.xTip)
		waitCursor(t, st, internal.CChain, view.cTip)
		c := &txChecker{t: t, n: n, issued: issued, view: view, doc: doc,
			api: base + "/v1/networks/testnet/blockchains/"}

		t.Run("getTx/P", func(t *testing.T) { c.t = t; c.checkPTxs(long) })
		t.Run("getTx/X", func(t *testing.T) { c.t = t; c.checkXTxs(transfer) })
		t.Run("getTx/C", func(t *testing.T) { c.t = t; c.checkCTxs() })
		t.Run("assetTxs", func(t *testing.T) { c.t = t; c.checkAssetTxs(transfer) })
		t.Run("staking", func(t *testing.T) { c.t = t; c.checkStaking(long) })
		t.Run("blocks", func(t *testing.T) { c.t = t; c.checkBlocks() })
		t.Run("badInput", func(t *testing.T) { c.t = t; c.checkBadInput() })
	})
}

type txChecker struct {
	t      *testing.T
	n      *testnet.Network
	issued *testnet.Issued
	view   *nodeView
	doc    *openapitest.Doc
	api    string // .../v1/networks/testnet/blockchains/
}

const (
	txPath      = "/v1/networks/{network}/blockchains/{blockchainId}/transactions/{txHash}"
	assetPath   = "/v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}/transactions"
	stakingPath = "/v1/networks/{network}/blockchains/{blockchainId}/transactions:listStaking"
	blocksPath  = "/v1/networks/{network}/blockchains/{blockchainId}/blocks"
)

// fetch GETs path below the blockchains, wants 200, validates the body
// against the operation at template and schema (when not empty), and
// decodes it into v.
func (c *txChecker) fetch(path, template, schema string, v any) []byte {
	c.t.Helper()
	status, body, hdr := get(c.t, c.api+path)
	if status != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
		c.t.Fatalf("GET %s: %d %s", path, status, body)
	}
	c.doc.ValidateResponse(c.t, "GET", template, status, body)
	if schema != "" {
		c.doc.ValidateSchema(c.t, schema, body)
	}
	if strings.Contains(string(body), "null") {
		c.t.Errorf("GET %s: body has a null: %s", path, clip(body))
	}
	if err := json.Unmarshal(body, v); err != nil {
		c.t.Fatalf("GET %s: %v", path, err)
	}
	return body
}

func (c *txChecker) bech32(a ids.ShortID) string {
	s, err := address.FormatBech32(c.n.HRP, a[:])
	if err != nil {
		c.t.Fatal(err)
	}
	return s
}

func utxoIDs(us []wUTXO) []string {
	out := []string{}
	for _, u := range us {
		out = append(out, u.UtxoID)
	}
	return out
}

func inputIDs(ins []*avax.TransferableInput) []string {
	out := []string{}
	for _, in := range ins {
		out = append(out, in.InputID().String())
	}
	return out
}

func outputIDs(txID ids.ID, from, n int) []string {
	out := []string{}
	for i := from; i < from+n; i++ {
		out = append(out, (&avax.UTXOID{TxID: txID, OutputIndex: uint32(i)}).InputID().String())
	}
	return out
}

// sums adds amounts by asset id.
func sums(m map[string]uint64, outs []*avax.TransferableOutput) {
	for _, o := range outs {
		m[o.AssetID().String()] += o.Out.Amount()
	}
}

func insSum(m map[string]uint64, ins []*avax.TransferableInput) {
	for _, in := range ins {
		m[in.AssetID().String()] += in.In.Amount()
	}
}

// amounts reads a list of AssetAmounts as a map, checking each asset's
// details.
func (c *txChecker) amounts(what string, as []wAsset) map[string]uint64 {
	c.t.Helper()
	out := map[string]uint64{}
	for _, a := range as {
		v, err := strconv.ParseUint(a.Amount, 10, 64)
		if err != nil || v == 0 {
			c.t.Errorf("%s: amount %q", what, a.Amount)
		}
		out[a.AssetID] += v
		c.checkAsset(what, a)
	}
	return out
}

func (c *txChecker) checkAsset(what string, a wAsset) {
	c.t.Helper()
	want := wAsset{AssetID: a.AssetID, Name: "Avalanche", Symbol: "AVAX", Denomination: 9, Type: "secp256k1", Amount: a.Amount}
	if a.AssetID == c.issued.AssetID.String() {
		want.Name, want.Symbol, want.Denomination = "Avaindex Test", "AIT", 2
	} else if a.AssetID != c.n.AVAXAssetID.String() {
		c.t.Errorf("%s: unexpected asset %s", what, a.AssetID)
		return
	}
	if a != want {
		c.t.Errorf("%s: asset %+v, want %+v", what, a, want)
	}
}

func nonZero(m map[string]uint64) map[string]uint64 {
	out := map[string]uint64{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

func utxoSum(us []wUTXO) map[string]uint64 {
	out := map[string]uint64{}
	for _, u := range us {
		v, _ := strconv.ParseUint(u.Amount, 10, 64)
		out[u.Asset.AssetID] += v
	}
	return out
}

// baseOf returns the inputs and outputs every P-chain tx type but the
// reward and advance-time txs has.
func baseOf(u txs.UnsignedTx) *avax.BaseTx {
	if b, ok := u.(*txs.BaseTx); ok {
		return &b.BaseTx
	}
	f := reflect.Indirect(reflect.ValueOf(u)).FieldByName("BaseTx")
	if !f.IsValid() {
		return nil
	}
	b := f.Interface().(txs.BaseTx)
	return &b.BaseTx
}

func (c *txChecker) checkPTxs(long *longStakers) {
	t, is, ctx := c.t, c.issued, context.Background()
	pChain := c.n.PChainID.String()
	for _, tc := range []struct {
		name, typ string
		id        ids.ID
	}{
		{"P base", "BaseTx", is.PBaseTx},
		{"create subnet", "CreateSubnetTx", is.CreateSubnetTx},
		{"create chain", "CreateChainTx", is.CreateChainTx},
		{"convert to L1", "ConvertSubnetToL1Tx", is.ConvertSubnetToL1.TxID},
		{"add validator", "AddPermissionlessValidatorTx", is.AddValidatorTx},
		{"add delegator", "AddPermissionlessDelegatorTx", is.AddDelegatorTx},
		{"validator reward", "RewardValidatorTx", is.RewardValidatorTx},
		{"delegator reward", "RewardValidatorTx", is.RewardDelegatorTx},
		{"export to X", "ExportTx", is.PExportToX},
		{"import from X", "ImportTx", is.PImportFromX},
		{"export to C", "ExportTx", is.PExportToC},
		{"import from C", "ImportTx", is.PImportFromC},
		{"long validator", "AddPermissionlessValidatorTx", long.validator},
		{"long delegator", "AddPermissionlessDelegatorTx", long.delegator},
	} {
		b, err := c.n.PClient().GetTx(ctx, tc.id)
		if err != nil {
			t.Fatalf("%s: platform.getTx: %v", tc.name, err)
		}
		tx, err := txs.Parse(txs.Codec, b)
		if err != nil {
			t.Fatal(err)
		}
		// Every blockchainId naming the P-chain answers the same.
		var got wPTx
		body := c.fetch("p-chain/transactions/"+tc.id.String(), txPath, "PChainTransaction", &got)
		_, body2, _ := get(t, c.api+pChain+"/transactions/"+tc.id.String())
		if !jsonEqual(body, body2) {
			t.Errorf("%s: answers differ between p-chain and %s", tc.name, pChain)
		}
		ref, ok := c.view.pBlockOf[tc.id]
		if !ok {
			t.Fatalf("%s: no node block holds %s", tc.name, tc.id)
		}
		if got.TxHash != tc.id.String() || got.TxType != tc.typ || got.BlockNumber != strconv.FormatUint(ref.height, 10) ||
			got.BlockHash != ref.id || got.BlockTimestamp != ref.time {
			t.Errorf("%s: tx %s %s block %s %s at %d; want %s %s block %d %s at %d", tc.name, got.TxHash, got.TxType,
				got.BlockNumber, got.BlockHash, got.BlockTimestamp, tc.id, tc.typ, ref.height, ref.id, ref.time)
		}

		// UTXOs and amounts, from the tx's own inputs and outputs.
		in, out, staked := map[string]uint64{}, map[string]uint64{}, map[string]uint64{}
		consumed, emitted := []string{}, []string{}
		if bt := baseOf(tx.Unsigned); bt != nil {
			consumed = inputIDs(bt.Ins)
			insSum(in, bt.Ins)
			sums(out, bt.Outs)
			emitted = outputIDs(tc.id, 0, len(bt.Outs))
		}
		if s, ok := tx.Unsigned.(txs.PermissionlessStaker); ok {
			sums(staked, s.Stake())
			sums(out, s.Stake())
			emitted = append(emitted, outputIDs(tc.id, len(emitted), len(s.Stake()))...)
		}
		switch u := tx.Unsigned.(type) {
		case *txs.ImportTx:
			consumed = append(consumed, inputIDs(u.ImportedInputs)...)
			insSum(in, u.ImportedInputs)
			for _, cu := range got.ConsumedUtxos[len(u.Ins):] {
				if cu.CreatedOnChainID != u.SourceChain.String() || cu.ConsumedOnChainID != pChain || cu.ConsumingTxHash != tc.id.String() {
					t.Errorf("%s: imported UTXO %+v", tc.name, cu)
				}
			}
			if got.SourceChain != u.SourceChain.String() || got.DestinationChain != pChain {
				t.Errorf("%s: chains %s -> %s", tc.name, got.SourceChain, got.DestinationChain)
			}
		case *txs.ExportTx:
			sums(out, u.ExportedOutputs)
			emitted = append(emitted, outputIDs(tc.id, len(emitted), len(u.ExportedOutputs))...)
			for _, eu := range got.EmittedUtxos[len(u.Outs):] {
				if eu.ConsumedOnChainID != u.DestinationChain.String() || eu.CreatedOnChainID != pChain {
					t.Errorf("%s: exported UTXO %+v", tc.name, eu)
				}
			}
			if got.SourceChain != pChain || got.DestinationChain != u.DestinationChain.String() {
				t.Errorf("%s: chains %s -> %s", tc.name, got.SourceChain, got.DestinationChain)
			}
		case *txs.RewardValidatorTx:
			rs, err := c.n.PClient().GetRewardUTXOs(ctx, &api.GetTxArgs{TxID: u.TxID})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rs {
				var utxo avax.UTXO
				if _, err := txs.Codec.Unmarshal(r, &utxo); err != nil {
					t.Fatal(err)
				}
				emitted = append(emitted, utxo.InputID().String())
				out[utxo.AssetID().String()] += utxo.Out.(avax.Amounter).Amount()
			}
			if got.StakingTxHash != u.TxID.String() {
				t.Errorf("%s: stakingTxHash %s, want %s", tc.name, got.StakingTxHash, u.TxID)
			}
			for _, ru := range got.EmittedUtxos {
				if ru.RewardType == "" || ru.TxHash != tc.id.String() {
					t.Errorf("%s: reward UTXO %+v", tc.name, ru)
				}
			}
			if len(rs) == 0 {
				t.Errorf("%s: the node reports no reward UTXO; the scenario wants a rewarded staker", tc.name)
			}
		}
		slices.Sort(consumed)
		if g := utxoIDs(got.ConsumedUtxos); !reflect.DeepEqual(sorted(g), consumed) {
			t.Errorf("%s: consumed %v, want %v", tc.name, g, consumed)
		}
		if g := utxoIDs(got.EmittedUtxos); !reflect.DeepEqual(g, emitted) {
			t.Errorf("%s: emitted %v, want %v", tc.name, g, emitted)
		}
		for _, u := range got.ConsumedUtxos {
			if u.ConsumingTxHash != tc.id.String() {
				t.Errorf("%s: consumed UTXO %s names consumer %s", tc.name, u.UtxoID, u.ConsumingTxHash)
			}
			c.checkAsset(tc.name, u.Asset)
		}
		for _, u := range got.EmittedUtxos {
			if u.BlockNumber != got.BlockNumber || (u.TxHash != tc.id.String()) {
				t.Errorf("%s: emitted UTXO %s created by %s at %s", tc.name, u.UtxoID, u.TxHash, u.BlockNumber)
			}
			c.checkAsset(tc.name, u.Asset)
		}
		// In the node's fee accounting every nAVAX the inputs bring and no
		// output takes is burned (an L1 validator's balance too).
		burned := map[string]uint64{}
		for a, v := range in {
			if v > out[a] {
				burned[a] = v - out[a]
			}
		}
		if g := c.amounts(tc.name+" value", got.Value); !reflect.DeepEqual(g, nonZero(out)) || !reflect.DeepEqual(g, nonZero(utxoSum(got.EmittedUtxos))) {
			t.Errorf("%s: value %v, want %v (the emitted UTXOs')", tc.name, g, out)
		}
		if g := c.amounts(tc.name+" burned", got.AmountBurned); !reflect.DeepEqual(g, burned) {
			t.Errorf("%s: amountBurned %v, want %v", tc.name, g, burned)
		}
		if g := c.amounts(tc.name+" staked", got.AmountStaked); !reflect.DeepEqual(g, nonZero(staked)) {
			t.Errorf("%s: amountStaked %v, want %v", tc.name, g, staked)
		}
		if ui := nonZero(utxoSum(got.ConsumedUtxos)); !reflect.DeepEqual(ui, nonZero(in)) {
			t.Errorf("%s: consumed UTXOs hold %v, the inputs spend %v", tc.name, ui, in)
		}
		c.checkPFields(tc.name, tx, &got, long)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// checkPFields checks the type-specific fields of a P-chain tx.
func (c *txChecker) checkPFields(name string, tx *txs.Tx, got *wPTx, long *longStakers) {
	t, is, ctx := c.t, c.issued, context.Background()
	me := []string{c.bech32(c.n.Addr)}
	switch u := tx.Unsigned.(type) {
	case *txs.CreateSubnetTx:
		o := got.SubnetOwnershipInfo
		if got.SubnetID != tx.ID().String() || o == nil || o.Threshold != 1 || !reflect.DeepEqual(o.Addresses, me) {
			t.Errorf("%s: subnet %s owner %+v", name, got.SubnetID, o)
		}
	case *txs.CreateChainTx:
		bi := got.BlockchainInfo
		if got.SubnetID != is.SubnetID.String() || bi == nil || bi.ChainName != "avaindex test chain" || bi.VMID != testnet.SubnetEVMID.String() {
			t.Fatalf("%s: subnet %s blockchainInfo %+v", name, got.SubnetID, bi)
		}
		var g struct {
			Config struct {
				ChainID json.Number `json:"chainId"`
			} `json:"config"`
			GasLimit   string         `json:"gasLimit"`
			Difficulty string         `json:"difficulty"`
			Alloc      map[string]any `json:"alloc"`
		}
		if err := json.Unmarshal(bi.GenesisData, &g); err != nil || g.Config.ChainID != "99999" || g.GasLimit != "0x7A1200" ||
			g.Difficulty != "0x0" || g.Alloc == nil {
			t.Errorf("%s: genesisData %s (%v)", name, bi.GenesisData, err)
		}
		c.doc.ValidateSchema(t, "EvmGenesisDto", bi.GenesisData)
	case *txs.ConvertSubnetToL1Tx:
		conv := is.ConvertSubnetToL1
		m := got.L1ValidatorManagerDetails
		if got.SubnetID != conv.SubnetID.String() || m == nil || m.BlockchainID != conv.ManagerChainID.String() ||
			!strings.EqualFold(m.ContractAddress, "0x"+hex.EncodeToString(conv.ManagerAddress)) {
			t.Errorf("%s: subnet %s manager %+v", name, got.SubnetID, m)
		}
		vs, err := c.n.PClient().GetCurrentValidators(ctx, conv.SubnetID, nil)
		if err != nil || len(vs) != 1 || vs[0].ValidationID == nil {
			t.Fatalf("%s: the node's L1 validators: %+v, %v", name, vs, err)
		}
		nv := vs[0]
		if len(got.L1ValidatorDetails) != 1 {
			t.Fatalf("%s: l1ValidatorDetails %+v", name, got.L1ValidatorDetails)
		}
		d := got.L1ValidatorDetails[0]
		if d.ValidationID != nv.ValidationID.String() || d.ValidationIDHex != "0x"+hex.EncodeToString(nv.ValidationID[:]) ||
			d.NodeID != nv.NodeID.String() || d.SubnetID != conv.SubnetID.String() || d.Weight != nv.Weight ||
			d.RemainingBalance != conv.Balance || d.BalanceChange == nil || *d.BalanceChange != int64(conv.Balance) {
			t.Errorf("%s: l1ValidatorDetails %+v; node %+v (balance %d)", name, d, nv, conv.Balance)
		}
		if g := c.amounts(name, got.AmountL1ValidatorBalanceBurned); !reflect.DeepEqual(g, map[string]uint64{c.n.AVAXAssetID.String(): conv.Balance}) {
			t.Errorf("%s: amountL1ValidatorBalanceBurned %v", name, g)
		}
	case *txs.AddPermissionlessValidatorTx, *txs.AddPermissionlessDelegatorTx:
		staker := u.(txs.Staker)
		current := c.currentStaker(tx.ID())
		wantStart := uint64(c.view.pBlockOf[tx.ID()].time) // post-Durango: the accepting block's time
		wantEnd := uint64(staker.EndTime().Unix())
		if got.NodeID != staker.NodeID().String() || got.SubnetID != c.n.PChainID.String() ||
			got.StartTimestamp == nil || *got.StartTimestamp != wantStart || got.EndTimestamp == nil || *got.EndTimestamp != wantEnd {
			t.Errorf("%s: node %s subnet %s start %v end %v; want %s, %d, %d", name, got.NodeID, got.SubnetID,
				got.StartTimestamp, got.EndTimestamp, staker.NodeID(), wantStart, wantEnd)
		}
		wantRewardTo := me
		if tx.ID() == long.validator || tx.ID() == long.delegator {
			wantRewardTo = []string{c.bech32(long.key.Address())}
		}
		if !reflect.DeepEqual(got.RewardAddresses, wantRewardTo) || got.EstimatedReward == "" {
			t.Errorf("%s: rewardAddresses %v estimatedReward %q", name, got.RewardAddresses, got.EstimatedReward)
		}
		if current != nil {
			// Current: as the node's current validator set says.
			if got.RewardTxHash != "" || *got.StartTimestamp != current.staker.StartTime || *got.EndTimestamp != current.staker.EndTime ||
				current.potential == nil || got.EstimatedReward != strconv.FormatUint(*current.potential, 10) {
				t.Errorf("%s: start %d end %d estimatedReward %s rewardTx %q; node %+v", name, *got.StartTimestamp, *got.EndTimestamp,
					got.EstimatedReward, got.RewardTxHash, current)
			}
		} else {
			// Rewarded in the scenario.
			want := is.RewardValidatorTx
			if tx.ID() == is.AddDelegatorTx {
				want = is.RewardDelegatorTx
			}
			if got.RewardTxHash != want.String() {
				t.Errorf("%s: rewardTxHash %s, want %s", name, got.RewardTxHash, want)
			}
		}
		if v, ok := u.(*txs.AddPermissionlessValidatorTx); ok {
			pop := v.Signer.(*signer.ProofOfPossession)
			if got.DelegationFeePercent != "10.0000" || got.BlsCredentials == nil ||
				got.BlsCredentials.PublicKey != "0x"+hex.EncodeToString(pop.PublicKey[:]) ||
				got.BlsCredentials.ProofOfPossession != "0x"+hex.EncodeToString(pop.ProofOfPossession[:]) {
				t.Errorf("%s: delegationFeePercent %q bls %+v", name, got.DelegationFeePercent, got.BlsCredentials)
			}
		}
		for _, s := range got.EmittedUtxos[len(baseOf(u).Outs):] {
			if s.UtxoType != "STAKE" || s.Staked == nil || *s.Staked != (current != nil) ||
				s.UtxoStartTimestamp == nil || *s.UtxoStartTimestamp != wantStart || s.UtxoEndTimestamp == nil || *s.UtxoEndTimestamp != wantEnd {
				t.Errorf("%s: stake UTXO %+v (current %t)", name, s, current != nil)
			}
		}
	}
}

// currentStaker returns the node's current primary-network validator or
// delegator added by txID, nil when it is not current.
func (c *txChecker) currentStaker(txID ids.ID) *nodeStaker {
	c.t.Helper()
	for _, s := range c.nodeStakers() {
		if s.staker.TxID == txID {
			return &s
		}
	}
	return nil
}

// nodeStaker is a current staker as the node lists it.
type nodeStaker struct {
	staker    platformvm.ClientStaker
	potential *uint64
	rewardTo  []ids.ShortID
	typ       string // "validator" or "delegator"
	fee       float32
}

// nodeStakers returns the node's current primary-network validators and
// delegators.
func (c *txChecker) nodeStakers() []nodeStaker {
	c.t.Helper()
	ctx := context.Background()
	pc := c.n.PClient()
	vs, err := pc.GetCurrentValidators(ctx, constants.PrimaryNetworkID, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	var out []nodeStaker
	for _, v := range vs {
		s := nodeStaker{staker: v.ClientStaker, potential: v.PotentialReward, typ: "validator", fee: v.DelegationFee}
		for _, o := range []*platformvm.ClientOwner{v.ValidationRewardOwner, v.DelegationRewardOwner} {
			if o != nil {
				s.rewardTo = append(s.rewardTo, o.Addresses...)
			}
		}
		out = append(out, s)
		// Delegators are listed only when one node id is asked for.
		one, err := pc.GetCurrentValidators(ctx, constants.PrimaryNetworkID, []ids.NodeID{v.NodeID})
		if err != nil || len(one) != 1 {
			c.t.Fatalf("validator %s: %+v, %v", v.NodeID, one, err)
		}
		for _, d := range one[0].Delegators {
			ds := nodeStaker{staker: d.ClientStaker, potential: d.PotentialReward, typ: "delegator"}
			if d.RewardOwner != nil {
				ds.rewardTo = d.RewardOwner.Addresses
			}
			out = append(out, ds)
		}
	}
	return out
}

func (c *txChecker) checkXTxs(transfer ids.ID) {
	t, is, ctx := c.t, c.issued, context.Background()
	xChain := c.n.XChainID.String()
	for _, tc := range []struct {
		name, typ string
		id        ids.ID
	}{
		{"X base", "BaseTx", is.XBaseTx},
		{"create asset", "CreateAssetTx", is.CreateAssetTx},
		{"import from P", "ImportTx", is.XImportFromP},
		{"export to P", "ExportTx", is.XExportToP},
		{"asset transfer", "BaseTx", transfer},
	} {
		b, err := c.n.XClient().GetTx(ctx, tc.id)
		if err != nil {
			t.Fatalf("%s: avm.getTx: %v", tc.name, err)
		}
		tx, err := builder.Parser.ParseTx(b)
		if err != nil {
			t.Fatal(err)
		}
		var got wXTx
		body := c.fetch("x-chain/transactions/"+tc.id.String(), txPath, "XChainLinearTransaction", &got)
		_, body2, _ := get(t, c.api+xChain+"/transactions/"+tc.id.String())
		if !jsonEqual(body, body2) {
			t.Errorf("%s: answers differ between x-chain and %s", tc.name, xChain)
		}
		ref := c.view.xBlockOf[tc.id]
		if got.TxHash != tc.id.String() || got.TxType != tc.typ || got.ChainFormat != "linear" || got.BlockHeight == nil ||
			*got.BlockHeight != ref.height || got.BlockHash != ref.id || got.Timestamp != ref.time {
			t.Errorf("%s: %+v; want block %d %s at %d", tc.name, got, ref.height, ref.id, ref.time)
		}
		var base *avmtxs.BaseTx
		in, out := map[string]uint64{}, map[string]uint64{}
		switch u := tx.Unsigned.(type) {
		case *avmtxs.BaseTx:
			base = u
		case *avmtxs.CreateAssetTx:
			base = &u.BaseTx
			a := got.AssetCreated
			if a == nil || a.AssetID != tc.id.String() || a.Name != "Avaindex Test" || a.Symbol != "AIT" || a.Denomination != 2 ||
				a.Type != "secp256k1" || a.Cap != "fixed" || a.CreatedAtTimestamp != ref.time {
				t.Errorf("%s: assetCreated %+v", tc.name, a)
			}
		case *avmtxs.ImportTx:
			base = &u.BaseTx
			insSum(in, u.ImportedIns)
			if got.SourceChain != u.SourceChain.String() || got.DestinationChain != xChain {
				t.Errorf("%s: chains %s -> %s", tc.name, got.SourceChain, got.DestinationChain)
			}
		case *avmtxs.ExportTx:
			base = &u.BaseTx
			sums(out, u.ExportedOuts)
			if got.SourceChain != xChain || got.DestinationChain != u.DestinationChain.String() {
				t.Errorf("%s: chains %s -> %s", tc.name, got.SourceChain, got.DestinationChain)
			}
		}
		insSum(in, base.Ins)
		consumed := inputIDs(base.Ins)
		if imp, ok := tx.Unsigned.(*avmtxs.ImportTx); ok {
			consumed = append(consumed, inputIDs(imp.ImportedIns)...)
		}
		emitted := []string{}
		for _, u := range tx.UTXOs() {
			emitted = append(emitted, u.InputID().String())
			out[u.AssetID().String()] += u.Out.(avax.Amounter).Amount()
		}
		if exp, ok := tx.Unsigned.(*avmtxs.ExportTx); ok {
			emitted = append(emitted, outputIDs(tc.id, len(base.Outs), len(exp.ExportedOuts))...)
		}
		if g := utxoIDs(got.ConsumedUtxos); !reflect.DeepEqual(sorted(g), sorted(consumed)) {
			t.Errorf("%s: consumed %v, want %v", tc.name, g, consumed)
		}
		if g := utxoIDs(got.EmittedUtxos); !reflect.DeepEqual(g, emitted) {
			t.Errorf("%s: emitted %v, want %v", tc.name, g, emitted)
		}
		if g := c.amounts(tc.name, got.AmountUnlocked); !reflect.DeepEqual(g, nonZero(in)) {
			t.Errorf("%s: amountUnlocked %v, want %v", tc.name, g, in)
		}
		if g := c.amounts(tc.name, got.AmountCreated); !reflect.DeepEqual(g, nonZero(out)) {
			t.Errorf("%s: amountCreated %v, want %v", tc.name, g, out)
		}
		// The wallet signs every input with the local key.
		myKey := "0x" + hex.EncodeToString(c.n.Key.PublicKey().Bytes())
		for i, u := range got.ConsumedUtxos {
			if i < len(base.Ins) && (len(u.Credentials) != 1 || u.Credentials[0].PublicKey != myKey) {
				t.Errorf("%s: consumed UTXO %s credentials %+v, want the local key's", tc.name, u.UtxoID, u.Credentials)
			}
			if u.ConsumingTxHash != tc.id.String() || len(u.OutputIndex) == 0 || u.OutputIndex[0] != '"' {
				t.Errorf("%s: consumed UTXO %+v", tc.name, u)
			}
			c.checkAsset(tc.name, u.Asset)
		}
		for _, u := range got.EmittedUtxos {
			if u.CreationTxHash != tc.id.String() || u.CreatedOnChainID != xChain || len(u.OutputIndex) == 0 || u.OutputIndex[0] != '"' {
				t.Errorf("%s: emitted UTXO %+v", tc.name, u)
			}
		}
	}
}

func (c *txChecker) checkCTxs() {
	t, is, ctx := c.t, c.issued, context.Background()
	cChain := c.n.CChainID.String()
	for _, tc := range []struct {
		name, typ string
		id        ids.ID
	}{
		{"C export to P", "ExportTx", is.CExportToP},
		{"C import from P", "ImportTx", is.CImportFromP},
	} {
		var reply struct {
			Tx          string `json:"tx"`
			BlockHeight string `json:"blockHeight"`
		}
		if err := c.n.Call(ctx, "/ext/bc/C/avax", "avax.getAtomicTx", map[string]any{"txID": tc.id.String(), "encoding": "hex"}, &reply); err != nil {
			t.Fatalf("%s: avax.getAtomicTx: %v", tc.name, err)
		}
		b, err := formatting.Decode(formatting.Hex, reply.Tx)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := atomic.ExtractAtomicTx(b, atomic.Codec)
		if err != nil {
			t.Fatal(err)
		}
		var blk struct {
			Hash      string `json:"hash"`
			Timestamp string `json:"timestamp"`
		}
		height, _ := strconv.ParseUint(reply.BlockHeight, 10, 64)
		if err := c.n.Call(ctx, "/ext/bc/C/rpc", "eth_getBlockByNumber", []any{fmt.Sprintf("0x%x", height), false}, &blk); err != nil {
			t.Fatal(err)
		}
		ts, _ := strconv.ParseInt(strings.TrimPrefix(blk.Timestamp, "0x"), 16, 64)
		schema := "CChainExportTransaction"
		if tc.typ == "ImportTx" {
			schema = "CChainImportTransaction"
		}
		var got wCTx
		body := c.fetch("c-chain/transactions/"+tc.id.String(), txPath, schema, &got)
		_, body2, _ := get(t, c.api+cChain+"/transactions/"+tc.id.String())
		if !jsonEqual(body, body2) {
			t.Errorf("%s: answers differ between c-chain and %s", tc.name, cChain)
		}
		if got.TxHash != tc.id.String() || got.TxType != tc.typ || got.BlockHeight != height || got.BlockHash != blk.Hash || got.Timestamp != ts {
			t.Errorf("%s: %+v; want block %d %s at %d", tc.name, got, height, blk.Hash, ts)
		}
		in, out := map[string]uint64{}, map[string]uint64{}
		switch u := tx.UnsignedAtomicTx.(type) {
		case *atomic.UnsignedExportTx:
			for i, ei := range u.Ins {
				in[ei.AssetID.String()] += ei.Amount
				if i >= len(got.EVMInputs) || !strings.EqualFold(got.EVMInputs[i].FromAddress, ei.Address.Hex()) ||
					got.EVMInputs[i].Asset.Amount != strconv.FormatUint(ei.Amount, 10) || len(got.EVMInputs[i].Credentials) != 1 {
					t.Errorf("%s: evmInputs %+v, want %+v", tc.name, got.EVMInputs, u.Ins)
				}
			}
			sums(out, u.ExportedOutputs)
			if g, want := utxoIDs(got.EmittedUtxos), outputIDs(tc.id, 0, len(u.ExportedOutputs)); !reflect.DeepEqual(g, want) {
				t.Errorf("%s: emitted %v, want %v", tc.name, g, want)
			}
			for _, e := range got.EmittedUtxos {
				// The P-chain imported it.
				if e.ConsumedOnChainID != u.DestinationChain.String() || e.CreatedOnChainID != cChain || e.ConsumingTxHash != is.PImportFromC.String() {
					t.Errorf("%s: exported UTXO %+v", tc.name, e)
				}
			}
			if got.SourceChain != cChain || got.DestinationChain != u.DestinationChain.String() {
				t.Errorf("%s: chains %s -> %s", tc.name, got.SourceChain, got.DestinationChain)
			}
		case *atomic.UnsignedImportTx:
			insSum(in, u.ImportedInputs)
			for i, o := range u.Outs {
				out[o.AssetID.String()] += o.Amount
				if i >= len(got.EVMOutputs) || !strings.EqualFold(got.EVMOutputs[i].ToAddress, o.Address.Hex()) ||
					got.EVMOutputs[i].Asset.Amount != strconv.FormatUint(o.Amount, 10) {
					t.Errorf("%s: evmOutputs %+v, want %+v", tc.name, got.EVMOutputs, u.Outs)
				}
			}
			if g, want := utxoIDs(got.ConsumedUtxos), inputIDs(u.ImportedInputs); !reflect.DeepEqual(sorted(g), sorted(want)) {
				t.Errorf("%s: consumed %v, want %v", tc.name, g, want)
			}
			for _, e := range got.ConsumedUtxos {
				// The P-chain exported it.
				if e.CreatedOnChainID != u.SourceChain.String() || e.ConsumedOnChainID != cChain || e.CreationTxHash != is.PExportToC.String() ||
					e.ConsumingTxHash != tc.id.String() || len(e.Credentials) != 1 {
					t.Errorf("%s: imported UTXO %+v", tc.name, e)
				}
			}
			if got.SourceChain != u.SourceChain.String() || got.DestinationChain != cChain {
				t.Errorf("%s: chains %s -> %s", tc.name, got.SourceChain, got.DestinationChain)
			}
		}
		if g := c.amounts(tc.name, got.AmountUnlocked); !reflect.DeepEqual(g, nonZero(in)) {
			t.Errorf("%s: amountUnlocked %v, want %v", tc.name, g, in)
		}
		if g := c.amounts(tc.name, got.AmountCreated); !reflect.DeepEqual(g, nonZero(out)) {
			t.Errorf("%s: amountCreated %v, want %v", tc.name, g, out)
		}
	}
}

// pageAll pages through a list with pageSize size and returns every page's
// raw items, checking each page against the operation at template.
func (c *txChecker) pageAll(path, template, field string, size int) []json.RawMessage {
	c.t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	var items []json.RawMessage
	next := path + sep + "pageSize=" + strconv.Itoa(size)
	for pages := 0; ; pages++ {
		if pages > 1000 {
			c.t.Fatalf("%s: paging does not end", path)
		}
		var page map[string]json.RawMessage
		c.fetch(next, template, "", &page)
		var got []json.RawMessage
		if err := json.Unmarshal(page[field], &got); err != nil {
			c.t.Fatalf("%s: %s: %v", next, field, err)
		}
		if len(got) > size {
			c.t.Fatalf("%s: %d items on a page of %d", next, len(got), size)
		}
		items = append(items, got...)
		var tok string
		if raw, ok := page["nextPageToken"]; ok {
			if err := json.Unmarshal(raw, &tok); err != nil || tok == "" {
				c.t.Fatalf("%s: nextPageToken %s", next, raw)
			}
		}
		if tok == "" {
			return items
		}
		next = path + sep + "pageSize=" + strconv.Itoa(size) + "&pageToken=" + url.QueryEscape(tok)
	}
}

func hashes(t *testing.T, items []json.RawMessage) []string {
	out := []string{}
	for _, it := range items {
		var v struct{ TxHash string }
		if err := json.Unmarshal(it, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v.TxHash)
	}
	return out
}

// xTxAssets returns the assets an X-chain tx moves, read off the tx as the
// node returned it, and its type.
func xTxAssets(tx *avmtxs.Tx) (set.Set[ids.ID], string) {
	assets := set.Set[ids.ID]{}
	for _, u := range tx.UTXOs() {
		assets.Add(u.AssetID())
	}
	ins := func(in []*avax.TransferableInput) {
		for _, i := range in {
			assets.Add(i.AssetID())
		}
	}
	typ := ""
	switch u := tx.Unsigned.(type) {
	case *avmtxs.BaseTx:
		ins(u.Ins)
		typ = "BaseTx"
	case *avmtxs.CreateAssetTx:
		ins(u.Ins)
		assets.Add(tx.ID())
		typ = "CreateAssetTx"
	case *avmtxs.OperationTx:
		ins(u.Ins)
		for _, op := range u.Ops {
			assets.Add(op.AssetID())
		}
		typ = "OperationTx"
	case *avmtxs.ImportTx:
		ins(u.Ins)
		ins(u.ImportedIns)
		typ = "ImportTx"
	case *avmtxs.ExportTx:
		ins(u.Ins)
		for _, o := range u.ExportedOuts {
			assets.Add(o.AssetID())
		}
		typ = "ExportTx"
	}
	return assets, typ
}

func (c *txChecker) checkAssetTxs(transfer ids.ID) {
	t, is := c.t, c.issued
	// The test asset's txs, newest first, as the node's X-chain has them:
	// its creation, the transfer this test made, and those other tests of
	// the same network made.
	var want []string
	for i := len(c.view.xTxs) - 1; i >= 0; i-- {
		id := c.view.xTxs[i]
		if assets := c.view.xTxAssets[id]; assets.Contains(is.AssetID) {
			want = append(want, id.String())
		}
	}
	if !slices.Contains(want, transfer.String()) || want[len(want)-1] != is.CreateAssetTx.String() {
		t.Fatalf("the node's txs of the test asset %v lack the transfer %s or do not start with its creation", want, transfer)
	}
	within := func(from, to int64) []string {
		out := []string{}
		for _, id := range want {
			if txID, _ := ids.FromString(id); c.view.xBlockOf[txID].time >= from && c.view.xBlockOf[txID].time <= to {
				out = append(out, id)
			}
		}
		return out
	}
	ofTypes := func(types ...string) []string {
		out := []string{}
		for _, id := range want {
			if txID, _ := ids.FromString(id); slices.Contains(types, c.view.xTxType[txID]) {
				out = append(out, id)
			}
		}
		return out
	}
	path := "x-chain/assets/" + is.AssetID.String() + "/transactions"
	for _, size := range []int{1, 10} {
		if got := hashes(t, c.pageAll(path, assetPath, "transactions", size)); !reflect.DeepEqual(got, want) {
			t.Errorf("asset txs (pageSize %d) = %v, want %v", size, got, want)
		}
	}
	var page struct {
		Transactions []wXTx
		ChainInfo    struct{ ChainName, Network string }
	}
	c.fetch(path, assetPath, "ListXChainTransactionsResponse", &page)
	last := len(page.Transactions) - 1
	if page.ChainInfo.ChainName != "x-chain" || page.ChainInfo.Network != "testnet" || len(page.Transactions) != min(len(want), 10) ||
		len(want) <= 10 && (page.Transactions[last].AssetCreated == nil || page.Transactions[0].AssetCreated != nil) {
		t.Errorf("asset txs page: %+v", page)
	}
	// Filters.
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"?txTypes=CreateAssetTx", ofTypes("CreateAssetTx")},
		{"?txTypes=BaseTx,ExportTx", ofTypes("BaseTx", "ExportTx")},
		{"?txTypes=AddValidatorTx", []string{}},
		{fmt.Sprintf("?startTimestamp=%d", c.view.xBlockOf[transfer].time), within(c.view.xBlockOf[transfer].time, math.MaxInt64)},
		{fmt.Sprintf("?endTimestamp=%d", c.view.xBlockOf[is.CreateAssetTx].time), within(0, c.view.xBlockOf[is.CreateAssetTx].time)},
	} {
		if got := hashes(t, c.pageAll(path+tc.query, assetPath, "transactions", 10)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("asset txs %s = %v, want %v", tc.query, got, tc.want)
		}
	}
	// AVAX: every X-chain tx pays its fee in AVAX, so all of them, newest
	// first, each once.
	var all []string
	for i := len(c.view.xTxs) - 1; i >= 0; i-- {
		all = append(all, c.view.xTxs[i].String())
	}
	avaxPath := c.n.XChainID.String() + "/assets/" + c.n.AVAXAssetID.String() + "/transactions"
	if got := hashes(t, c.pageAll(avaxPath, assetPath, "transactions", 1)); !reflect.DeepEqual(got, all) {
		t.Errorf("AVAX txs = %v, want every X-chain tx %v", got, all)
	}
	t.Logf("paged through the %d X-chain txs that moved AVAX", len(all))
	// An asset nothing moved has no txs.
	if got := hashes(t, c.pageAll("x-chain/assets/"+ids.GenerateTestID().String()+"/transactions", assetPath, "transactions", 5)); len(got) != 0 {
		t.Errorf("unknown asset: %v", got)
	}
}

func (c *txChecker) checkStaking(long *longStakers) {
	t := c.t
	node := c.nodeStakers()
	// What the node lists for a set of reward addresses, ordered as the
	// list is: by start time, then tx id, descending.
	expect := func(addrs ...ids.ShortID) []string {
		var sel []nodeStaker
		for _, s := range node {
			if len(addrs) == 0 || slices.ContainsFunc(s.rewardTo, func(a ids.ShortID) bool { return slices.Contains(addrs, a) }) {
				sel = append(sel, s)
			}
		}
		slices.SortFunc(sel, func(a, b nodeStaker) int {
			if a.staker.StartTime != b.staker.StartTime {
				return -cmpU(a.staker.StartTime, b.staker.StartTime)
			}
			return -a.staker.TxID.Compare(b.staker.TxID)
		})
		out := []string{}
		for _, s := range sel {
			out = append(out, s.staker.TxID.String())
		}
		return out
	}
	mine := c.bech32(long.key.Address())
	wantMine := expect(long.key.Address())
	if !reflect.DeepEqual(sorted(wantMine), sorted([]string{long.validator.String(), long.delegator.String()})) {
		t.Fatalf("the node lists %v for the long-lived stakers' key", wantMine)
	}
	ewoq := expect(c.n.Addr)
	for _, gone := range []ids.ID{c.issued.AddValidatorTx, c.issued.AddDelegatorTx} {
		if slices.Contains(ewoq, gone.String()) {
			t.Fatalf("the node still lists rewarded staker %s", gone)
		}
	}
	for _, tc := range []struct {
		name, query string
		want        []string
	}{
		{"long-lived key", "?addresses=" + mine, wantMine},
		{"with P- prefix", "?addresses=P-" + mine, wantMine},
		{"local key with X- prefix", "?addresses=X-" + c.bech32(c.n.Addr), ewoq},
		{"both", "?addresses=" + mine + ",P-" + c.bech32(c.n.Addr), expect(long.key.Address(), c.n.Addr)},
		{"all", "", expect()},
		{"delegators only", "?addresses=" + mine + "&txTypes=AddPermissionlessDelegatorTx", []string{long.delegator.String()}},
		{"asc", "?addresses=" + mine + "&sortOrder=asc", reversed(wantMine)},
		{"nobody's", "?addresses=" + c.bech32(ids.GenerateTestShortID()), []string{}},
	} {
		for _, size := range []int{1, 100} {
			got := hashes(t, c.pageAll("p-chain/transactions:listStaking"+tc.query, stakingPath, "transactions", size))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s (pageSize %d): %v, want %v", tc.name, size, got, tc.want)
			}
			for _, gone := range []ids.ID{c.issued.AddValidatorTx, c.issued.AddDelegatorTx} {
				if slices.Contains(got, gone.String()) {
					t.Errorf("%s: lists the rewarded staker %s", tc.name, gone)
				}
			}
		}
	}
	t.Logf("%d current stakers, %d rewarded to the local key, %d to the long-lived stakers' key", len(node), len(ewoq), len(wantMine))
	// Each item is the tx as getTxByHash renders it, with the node's
	// staking values.
	var page struct {
		Transactions []json.RawMessage
		ChainInfo    struct{ ChainName, Network string }
	}
	c.fetch("p-chain/transactions:listStaking?addresses="+mine, stakingPath, "ListPChainTransactionsResponse", &page)
	if page.ChainInfo.ChainName != "p-chain" || page.ChainInfo.Network != "testnet" {
		t.Errorf("chainInfo %+v", page.ChainInfo)
	}
	for _, raw := range page.Transactions {
		var item wPTx
		if err := json.Unmarshal(raw, &item); err != nil {
			t.Fatal(err)
		}
		_, single, _ := get(t, c.api+"p-chain/transactions/"+item.TxHash)
		if !jsonEqual(raw, single) {
			t.Errorf("listed %s differs from getTxByHash:\n%s\n%s", item.TxHash, clip(raw), clip(single))
		}
		for _, s := range node {
			if s.staker.TxID.String() != item.TxHash {
				continue
			}
			if item.StartTimestamp == nil || *item.StartTimestamp != s.staker.StartTime || *item.EndTimestamp != s.staker.EndTime ||
				s.potential == nil || item.EstimatedReward != strconv.FormatUint(*s.potential, 10) || item.NodeID != long.nodeID.String() ||
				!reflect.DeepEqual(item.RewardAddresses, []string{mine}) {
				t.Errorf("listed %+v; node %+v (potential %v)", item, s.staker, s.potential)
			}
			if s.typ == "validator" && item.DelegationFeePercent != strconv.FormatFloat(float64(s.fee), 'f', 4, 64) {
				t.Errorf("listed %s: delegationFeePercent %s, node %v", item.TxHash, item.DelegationFeePercent, s.fee)
			}
		}
	}
}

func reversed(s []string) []string {
	s = slices.Clone(s)
	slices.Reverse(s)
	return s
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (c *txChecker) checkBlocks() {
	t, ctx := c.t, context.Background()
	// X-chain: every block as the node has it, newest first.
	items := c.pageAll("x-chain/blocks", blocksPath, "blocks", 3)
	type wBlock struct {
		BlockNumber, BlockHash, ParentHash, BlockType string
		BlockTimestamp                                int64
		TxCount, BlockSizeBytes                       int
		Transactions                                  []string
	}
	if uint64(len(items)) < c.view.xTip+1 {
		t.Fatalf("%d X-chain blocks listed, the node has %d", len(items), c.view.xTip+1)
	}
	items = items[len(items)-int(c.view.xTip)-1:] // blocks beyond the view may have come
	for i, raw := range items {
		h := c.view.xTip - uint64(i)
		blk, err := builder.Parser.ParseBlock(c.view.xBlocks[h])
		if err != nil {
			t.Fatal(err)
		}
		var got wBlock
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		want := wBlock{BlockNumber: strconv.FormatUint(h, 10), BlockHash: blk.ID().String(), ParentHash: blk.Parent().String(),
			BlockType: got.BlockType, BlockTimestamp: blk.Timestamp().Unix(), TxCount: len(blk.Txs()),
			BlockSizeBytes: len(c.view.xBlocks[h]), Transactions: []string{}}
		for _, tx := range blk.Txs() {
			want.Transactions = append(want.Transactions, tx.ID().String())
		}
		if !reflect.DeepEqual(got, want) || got.BlockType == "" {
			t.Errorf("X-chain block %d: %+v, want %+v", h, got, want)
		}
		var one wBlock
		c.fetch("x-chain/blocks/"+got.BlockHash, blocksPath+"/{blockId}", "GetPrimaryNetworkBlockResponse", &one)
		var byNumber wBlock
		c.fetch(c.n.XChainID.String()+"/blocks/"+got.BlockNumber, blocksPath+"/{blockId}", "", &byNumber)
		if !reflect.DeepEqual(one, got) || !reflect.DeepEqual(byNumber, got) {
			t.Errorf("X-chain block %d by id %+v, by number %+v; listed %+v", h, one, byNumber, got)
		}
	}

	// C-chain: every block (TestPrimaryNetworkBlocksMatchNode compares
	// their headers), each with its atomic txs as the node tells them.
	cItems := c.pageAll("c-chain/blocks", blocksPath, "blocks", 1)
	heights := map[uint64]bool{}
	for _, raw := range cItems {
		var got wBlock
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		h, _ := strconv.ParseUint(got.BlockNumber, 10, 64)
		heights[h] = true
		var blk struct {
			Hash      string `json:"hash"`
			Timestamp string `json:"timestamp"`
		}
		if err := c.n.Call(ctx, "/ext/bc/C/rpc", "eth_getBlockByNumber", []any{fmt.Sprintf("0x%x", h), false}, &blk); err != nil {
			t.Fatal(err)
		}
		ts, _ := strconv.ParseInt(strings.TrimPrefix(blk.Timestamp, "0x"), 16, 64)
		if got.BlockHash != blk.Hash || got.BlockTimestamp != ts || got.TxCount != len(got.Transactions) {
			t.Errorf("C-chain block %d: %+v; node hash %s time %d", h, got, blk.Hash, ts)
		}
		for _, id := range got.Transactions {
			var reply struct {
				BlockHeight string `json:"blockHeight"`
			}
			if err := c.n.Call(ctx, "/ext/bc/C/avax", "avax.getAtomicTx", map[string]any{"txID": id, "encoding": "hex"}, &reply); err != nil ||
				reply.BlockHeight != got.BlockNumber {
				t.Errorf("C-chain block %d lists %s; the node puts it at %q (%v)", h, id, reply.BlockHeight, err)
			}
		}
		var one wBlock
		c.fetch("c-chain/blocks/"+got.BlockHash, blocksPath+"/{blockId}", "GetPrimaryNetworkBlockResponse", &one)
		var byNumber wBlock
		c.fetch("c-chain/blocks/"+got.BlockNumber, blocksPath+"/{blockId}", "", &byNumber)
		if !reflect.DeepEqual(one, got) || !reflect.DeepEqual(byNumber, got) {
			t.Errorf("C-chain block %d by hash %+v, by number %+v; listed %+v", h, one, byNumber, got)
		}
	}
	t.Logf("compared %d X-chain blocks and %d C-chain blocks", len(items), len(cItems))
	for _, id := range []ids.ID{c.issued.CExportToP, c.issued.CImportFromP} {
		var got wCTx
		c.fetch("c-chain/transactions/"+id.String(), txPath, "", &got)
		if !heights[got.BlockHeight] {
			t.Errorf("C-chain block %d of atomic tx %s is not listed (%v)", got.BlockHeight, id, heights)
		}
	}
}

func (c *txChecker) checkBadInput() {
	t := c.t
	tx := c.issued.PBaseTx.String()
	tooMany := make([]string, 65)
	for i := range tooMany {
		tooMany[i] = c.bech32(ids.GenerateTestShortID())
	}
	foreign, err := address.FormatBech32("fuji", c.n.Addr[:])
	if err != nil {
		t.Fatal(err)
	}
	asset := "x-chain/assets/" + c.issued.AssetID.String() + "/transactions"
	for _, tc := range []struct {
		path, param, template string
		status                int
	}{
		{"p-chain/transactions/notAnID", "txHash", txPath, 400},
		{"q-chain/transactions/" + tx, "blockchainId", txPath, 400},
		{"p-chain/transactions/" + ids.GenerateTestID().String(), "not found", txPath, 404},
		// A tx of another chain is not found on this one.
		{"x-chain/transactions/" + tx, "not found", txPath, 404},
		{"c-chain/transactions/" + tx, "not found", txPath, 404},
		{"p-chain/assets/" + c.issued.AssetID.String() + "/transactions", "blockchainId", assetPath, 400},
		{"x-chain/assets/nope/transactions", "assetId", assetPath, 400},
		{asset + "?txTypes=Nope", "txTypes", assetPath, 400},
		{asset + "?startTimestamp=-1", "startTimestamp", assetPath, 400},
		{asset + "?startTimestamp=10&endTimestamp=9", "startTimestamp", assetPath, 400},
		{asset + "?pageSize=101", "pageSize", assetPath, 400},
		{asset + "?pageToken=abc", "pageToken", assetPath, 400},
		{"x-chain/transactions:listStaking", "blockchainId", stakingPath, 400},
		{"p-chain/transactions:listStaking?addresses=nope", "addresses", stakingPath, 400},
		{"p-chain/transactions:listStaking?addresses=" + foreign, "addresses", stakingPath, 400},
		{"p-chain/transactions:listStaking?addresses=" + strings.Join(tooMany, ","), "addresses", stakingPath, 400},
		{"p-chain/transactions:listStaking?sortOrder=up", "sortOrder", stakingPath, 400},
		{"p-chain/transactions:listStaking?txTypes=AddValidatorTx,Nope", "txTypes", stakingPath, 400},
		{"p-chain/transactions:listStaking?endTimestamp=x", "endTimestamp", stakingPath, 400},
		{"p-chain/transactions:listStaking?pageSize=0", "pageSize", stakingPath, 400},
		{"x-chain/blocks/notAnID", "blockId", blocksPath + "/{blockId}", 400},
		{"c-chain/blocks/" + tx, "blockId", blocksPath + "/{blockId}", 400},
		{"c-chain/blocks/0x" + strings.Repeat("ab", 32), "not found", blocksPath + "/{blockId}", 404},
		{"x-chain/blocks/99999999", "not found", blocksPath + "/{blockId}", 404},
	} {
		status, body, _ := get(t, c.api+tc.path)
		var e struct {
			Message    string
			StatusCode int
			Error      string
		}
		if err := json.Unmarshal(body, &e); err != nil || status != tc.status || e.StatusCode != tc.status ||
			e.Error != http.StatusText(tc.status) || !strings.Contains(e.Message, tc.param) {
			t.Errorf("GET %s = %d %s; want %d naming %q", tc.path, status, clip(body), tc.status, tc.param)
		}
		c.doc.ValidateResponse(t, "GET", tc.template, status, body)
	}
	// A token of one list is refused by another.
	var page struct{ NextPageToken string }
	c.fetch("p-chain/transactions:listStaking?pageSize=1", stakingPath, "", &page)
	if page.NextPageToken == "" {
		t.Fatal("no nextPageToken with pageSize 1")
	}
	for _, other := range []string{
		"p-chain/transactions:listStaking?sortOrder=asc&pageToken=",
		asset + "?pageToken=",
		"p-chain/blocks?pageToken=",
	} {
		status, body, _ := get(t, c.api+other+url.QueryEscape(page.NextPageToken))
		if status != 400 || !strings.Contains(string(body), "pageToken") {
			t.Errorf("GET %s<token of another list> = %d %s", other, status, clip(body))
		}
	}
}

// TestL1TransactionsDataAPI runs an L1 validator through its whole life on
// the custom network, where warp messages verify, and checks what
// getTxByHash tells of each L1 tx against what was issued and what the
// node holds.
func TestL1TransactionsDataAPI(t *testing.T) {
	n := testnet.GetCustom(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	issued, err := n.IssueL1Lifecycle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tip, err := n.PClient().GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	reg := issued.Registered
	// The disable refunds the remaining balance to the local key: the
	// node's UTXO of the DisableL1ValidatorTx after the tx's own outputs.
	disable, err := n.PClient().GetTx(ctx, issued.DisableL1ValidatorTx)
	if err != nil {
		t.Fatal(err)
	}
	disableTx, err := txs.Parse(txs.Codec, disable)
	if err != nil {
		t.Fatal(err)
	}
	outs := uint32(len(baseOf(disableTx.Unsigned).Outs))
	var refund uint64
	utxos, _, _, err := n.PClient().GetUTXOs(ctx, []ids.ShortID{n.Addr}, 1024, ids.ShortEmpty, ids.Empty)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range utxos {
		var u avax.UTXO
		if _, err := txs.Codec.Unmarshal(b, &u); err != nil {
			t.Fatal(err)
		}
		if u.TxID == issued.DisableL1ValidatorTx && u.OutputIndex >= outs {
			refund += u.Out.(avax.Amounter).Amount()
		}
	}
	if refund == 0 {
		t.Fatal("the node holds no refund of the disabled L1 validator")
	}
	vs, err := n.PClient().GetCurrentValidators(ctx, issued.L1.SubnetID, []ids.NodeID{reg.NodeID})
	if err != nil || len(vs) != 1 || vs[0].Weight != testnet.L1UpdatedWeight {
		t.Fatalf("the node's L1 validator %s: %+v, %v", reg.NodeID, vs, err)
	}
	avaxID := n.AVAXAssetID.String()
	doc := openapitest.Default(t)

	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn, "--genesis-file", n.GenesisFile, "--network-alias", "testnet")
		waitIndexed(t, base, tip, time.Minute)
		for _, tc := range []struct {
			name, typ         string
			id                ids.ID
			weight, remaining uint64
			change            *int64
			balanceBurned     uint64
			bls               bool
		}{
			{"register", "RegisterL1ValidatorTx", issued.RegisterL1ValidatorTx, testnet.L1RegisteredWeight,
				testnet.L1RegisteredBalance, ptrTo(int64(testnet.L1RegisteredBalance)), testnet.L1RegisteredBalance, true},
			// Fees accrued since the registration are not subtracted: the
			// remaining balance is what was deposited (see api.l1Details).
			{"set weight", "SetL1ValidatorWeightTx", issued.SetL1ValidatorWeightTx, testnet.L1UpdatedWeight,
				testnet.L1RegisteredBalance, nil, 0, false},
			{"increase balance", "IncreaseL1ValidatorBalanceTx", issued.IncreaseL1ValidatorBalanceTx, testnet.L1UpdatedWeight,
				testnet.L1RegisteredBalance + testnet.L1BalanceIncrease, ptrTo(int64(testnet.L1BalanceIncrease)), testnet.L1BalanceIncrease, false},
			{"disable", "DisableL1ValidatorTx", issued.DisableL1ValidatorTx, testnet.L1UpdatedWeight, 0, ptrTo(-int64(refund)), 0, false},
		} {
			status, body, _ := get(t, base+"/v1/networks/testnet/blockchains/p-chain/transactions/"+tc.id.String())
			if status != http.StatusOK {
				t.Fatalf("%s: %d %s", tc.name, status, body)
			}
			doc.ValidateResponse(t, "GET", txPath, status, body)
			doc.ValidateSchema(t, "PChainTransaction", body)
			var got wPTx
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			if got.TxType != tc.typ || len(got.L1ValidatorDetails) != 1 {
				t.Fatalf("%s: %s with %+v", tc.name, got.TxType, got.L1ValidatorDetails)
			}
			d := got.L1ValidatorDetails[0]
			if d.ValidationID != reg.ValidationID.String() || d.ValidationIDHex != "0x"+hex.EncodeToString(reg.ValidationID[:]) ||
				d.NodeID != reg.NodeID.String() || d.SubnetID != issued.L1.SubnetID.String() || d.Weight != tc.weight ||
				d.RemainingBalance != tc.remaining || !reflect.DeepEqual(d.BalanceChange, tc.change) {
				t.Errorf("%s: l1ValidatorDetails %+v (balanceChange %v); want weight %d remaining %d change %v", tc.name, d,
					deref(d.BalanceChange), tc.weight, tc.remaining, deref(tc.change))
			}
			var wantBurned map[string]uint64
			if tc.balanceBurned != 0 {
				wantBurned = map[string]uint64{avaxID: tc.balanceBurned}
			}
			if g := amountMap(got.AmountL1ValidatorBalanceBurned); !reflect.DeepEqual(g, wantBurned) {
				t.Errorf("%s: amountL1ValidatorBalanceBurned %v, want %v", tc.name, g, wantBurned)
			}
			if tc.name == "disable" {
				// The refund is emitted after the tx's own outputs.
				last := got.EmittedUtxos[len(got.EmittedUtxos)-1]
				if last.Amount != strconv.FormatUint(refund, 10) || last.TxHash != tc.id.String() {
					t.Errorf("%s: last emitted UTXO %+v, want the refund of %d", tc.name, last, refund)
				}
			}
		}
	})
}

func ptrTo[T any](v T) *T { return &v }

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func amountMap(as []wAsset) map[string]uint64 {
	if len(as) == 0 {
		return nil
	}
	out := map[string]uint64{}
	for _, a := range as {
		v, _ := strconv.ParseUint(a.Amount, 10, 64)
		out[a.AssetID] += v
	}
	return out
}
