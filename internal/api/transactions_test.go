package api

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/vms/avm/txs"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/chain/x/builder"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/derrors"
	"github.com/avaindex/avaindex/internal/param"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
)

// fakeXStore serves stored X-chain txs; any other read panics (the
// DataSource is nil), which the middleware turns into a 500.
type fakeXStore struct {
	DataSource
	txs   map[ids.ID]*store.TxRecord
	utxos map[ids.ID]*store.TxUTXOs
}

func (f *fakeXStore) XTx(_ context.Context, id ids.ID) (*store.TxRecord, error) {
	if r, ok := f.txs[id]; ok {
		return r, nil
	}
	return nil, derrors.NotFound
}

func (f *fakeXStore) TxUTXOs(_ context.Context, c internal.Chain, id ids.ID) (*store.TxUTXOs, error) {
	if u, ok := f.utxos[id]; ok && c == internal.XChain {
		return u, nil
	}
	return &store.TxUTXOs{}, nil
}

func (f *fakeXStore) TxsUTXOs(ctx context.Context, c internal.Chain, txIDs []ids.ID) (map[ids.ID]*store.TxUTXOs, error) {
	out := map[ids.ID]*store.TxUTXOs{}
	for _, id := range txIDs {
		out[id], _ = f.TxUTXOs(ctx, c, id)
	}
	return out, nil
}

// TxVertices: no vertex is indexed.
func (f *fakeXStore) TxVertices(context.Context, []ids.ID) (map[ids.ID][]store.Vertex, error) {
	return map[ids.ID][]store.Vertex{}, nil
}

// TestGetDAGTx renders a pre-Cortina X-chain tx, which the local network
// (linear from its genesis) cannot issue, as an XChainNonLinearTransaction.
func TestGetDAGTx(t *testing.T) {
	gb, avaxID, err := genesis.FromConfig(genesis.GetConfig(constants.LocalID))
	if err != nil {
		t.Fatal(err)
	}
	xChain, err := genesis.VMGenesis(gb, constants.AVMID)
	if err != nil {
		t.Fatal(err)
	}
	key, err := secp256k1.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	owners := secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{key.Address()}}
	spent := avax.UTXOID{TxID: ids.ID{1}, OutputIndex: 3}
	tx := &txs.Tx{Unsigned: &txs.BaseTx{BaseTx: avax.BaseTx{NetworkID: constants.LocalID, BlockchainID: xChain.ID(),
		Ins: []*avax.TransferableInput{{UTXOID: spent, Asset: avax.Asset{ID: avaxID},
			In: &secp256k1fx.TransferInput{Amt: 100, Input: secp256k1fx.Input{SigIndices: []uint32{0}}}}},
		Outs: []*avax.TransferableOutput{{Asset: avax.Asset{ID: avaxID}, Out: &secp256k1fx.TransferOutput{Amt: 90, OutputOwners: owners}}},
		Memo: []byte("dag"),
	}}}
	if err := tx.SignSECP256K1Fx(builder.Parser.Codec(), [][]*secp256k1.PrivateKey{{key}}); err != nil {
		t.Fatal(err)
	}
	utxoBytes := func(u *avax.UTXO) []byte {
		b, err := builder.Parser.Codec().Marshal(txs.CodecVersion, u)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	in := &avax.UTXO{UTXOID: spent, Asset: avax.Asset{ID: avaxID}, Out: &secp256k1fx.TransferOutput{Amt: 100, OutputOwners: owners}}
	out := tx.UTXOs()[0]
	at := time.Unix(1_600_000_000, 0)
	fake := &fakeXStore{
		txs: map[ids.ID]*store.TxRecord{tx.ID(): {ID: tx.ID(), Type: "BaseTx", Bytes: tx.Bytes(), Index: 7, DAG: true, Timestamp: at}},
		utxos: map[ids.ID]*store.TxUTXOs{tx.ID(): {
			Emitted: []*store.UTXORow{{Chain: internal.XChain, ID: out.InputID(), TxID: tx.ID(), Kind: "regular", AssetID: avaxID,
				Amount: 90, Bytes: utxoBytes(out), CreatedTxID: tx.ID(), CreatedTime: at.Unix(), CreatedKnown: true}},
			Consumed: []*store.UTXORow{{Chain: internal.XChain, ID: in.InputID(), TxID: spent.TxID, OutputIndex: 3, Kind: "regular",
				AssetID: avaxID, Amount: 100, Bytes: utxoBytes(in), CreatedTxID: spent.TxID, CreatedTime: at.Unix() - 10,
				CreatedKnown: true, ConsumedTxID: tx.ID(), ConsumedTime: at.Unix()}},
		}},
	}
	a, err := New(Deps{Store: fake, TokenKey: bytes.Repeat([]byte{1}, param.MinTokenKeyLen), Aliases: []string{Testnet},
		Network: &internal.Network{Name: "local", HRP: "local", XChainID: xChain.ID(), AVAXAssetID: avaxID}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, r := range a.Routes() {
		mux.Handle(r.Pattern, r.Handler)
	}
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/networks/testnet/blockchains/x-chain/transactions/"+tx.ID().String(), nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	doc := openapitest.Default(t)
	doc.ValidateRecorder(t, "GET", "/v1/networks/{network}/blockchains/{blockchainId}/transactions/{txHash}", rec)
	doc.ValidateSchema(t, "XChainNonLinearTransaction", rec.Body.Bytes())
	var got struct {
		ChainFormat, Memo string
		Timestamp         int64
		Vertices          []any
		BlockHeight       *uint64
		ConsumedUtxos     []struct {
			UtxoID, OutputIndex, ConsumingTxHash string
			Addresses                            []string
			Credentials                          []struct{ PublicKey string }
		}
		AmountUnlocked, AmountCreated []struct{ Symbol, Amount string }
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.ChainFormat != "non-linear" || got.Vertices == nil || len(got.Vertices) != 0 || got.BlockHeight != nil ||
		strings.Contains(rec.Body.String(), "blockHash") || got.Timestamp != at.Unix() || got.Memo != "0x"+hex.EncodeToString([]byte("dag")) {
		t.Errorf("DAG tx: %s", rec.Body)
	}
	if len(got.ConsumedUtxos) != 1 || got.ConsumedUtxos[0].OutputIndex != "3" || got.ConsumedUtxos[0].ConsumingTxHash != tx.ID().String() ||
		len(got.ConsumedUtxos[0].Credentials) != 1 || got.ConsumedUtxos[0].Credentials[0].PublicKey != "0x"+hex.EncodeToString(key.PublicKey().Bytes()) ||
		len(got.ConsumedUtxos[0].Addresses) != 1 || !strings.HasPrefix(got.ConsumedUtxos[0].Addresses[0], "local1") {
		t.Errorf("consumed: %+v", got.ConsumedUtxos)
	}
	if len(got.AmountUnlocked) != 1 || got.AmountUnlocked[0].Amount != "100" || got.AmountUnlocked[0].Symbol != "AVAX" ||
		len(got.AmountCreated) != 1 || got.AmountCreated[0].Amount != "90" {
		t.Errorf("amounts: unlocked %+v created %+v", got.AmountUnlocked, got.AmountCreated)
	}

	// Not stored: 404; not an id: 400 naming txHash.
	for path, want := range map[string]int{
		"/v1/networks/testnet/blockchains/x-chain/transactions/" + ids.GenerateTestID().String(): http.StatusNotFound,
		"/v1/networks/testnet/blockchains/x-chain/transactions/zzz":                              http.StatusBadRequest,
	} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != want || (want == 400 && !strings.Contains(rec.Body.String(), "txHash")) {
			t.Errorf("GET %s = %d %s, want %d", path, rec.Code, rec.Body, want)
		}
	}
}
