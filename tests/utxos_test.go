package tests

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/atomic"
	"github.com/ava-labs/avalanchego/graft/coreth/plugin/evm/client"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/utils/set"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/avm"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/components/verify"
	"github.com/ava-labs/avalanchego/vms/nftfx"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/stakeable"
	ptxs "github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/propertyfx"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/chain/x/builder"
	"github.com/ava-labs/avalanchego/wallet/subnet/primary"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
	"github.com/avaindex/avaindex/internal/xchain"
)

// utxoExtras are outputs the UTXO-list tests add to the scenario, owned by
// two fresh keys so that no other test spends or imports them: UTXOs with
// two owners and thresholds 1 and 2, one locked by its owners' locktime, an
// amount of the scenario's asset, and one export from each chain to each
// other chain left in shared memory.
var utxoExtras struct {
	once   sync.Once
	k1, k2 ids.ShortID
	err    error
}

func issueUTXOExtras(t *testing.T, n *testnet.Network, issued *testnet.Issued) (k1, k2 ids.ShortID) {
	t.Helper()
	utxoExtras.once.Do(func() {
		utxoExtras.err = func() error {
			a, err := testnet.NewKey()
			if err != nil {
				return err
			}
			b, err := testnet.NewKey()
			if err != nil {
				return err
			}
			k1, k2 := a.Address(), b.Address()
			utxoExtras.k1, utxoExtras.k2 = k1, k2
			out := func(asset ids.ID, amount uint64, locktime uint64, threshold uint32, addrs ...ids.ShortID) *avax.TransferableOutput {
				addrs = slices.Clone(addrs)
				utils.Sort(addrs)
				return &avax.TransferableOutput{Asset: avax.Asset{ID: asset}, Out: &secp256k1fx.TransferOutput{Amt: amount,
					OutputOwners: secp256k1fx.OutputOwners{Locktime: locktime, Threshold: threshold, Addrs: addrs}}}
			}
			avaxID := n.AVAXAssetID
			later := uint64(time.Now().Add(time.Hour).Unix())
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			return n.WithWallet(ctx, primary.WalletConfig{}, func(w *primary.Wallet) error {
				if _, err := w.P().IssueBaseTx([]*avax.TransferableOutput{
					out(avaxID, 3*units.Avax, 0, 1, k1), out(avaxID, 1*units.Avax, 0, 2, k1, k2),
					out(avaxID, 2*units.Avax, 0, 1, k1, k2), out(avaxID, units.Avax/2, 0, 1, k2),
					out(avaxID, units.Avax, later, 1, k1),
				}); err != nil {
					return fmt.Errorf("P BaseTx: %w", err)
				}
				if _, err := w.X().IssueBaseTx([]*avax.TransferableOutput{
					out(avaxID, 3*units.Avax, 0, 1, k1), out(avaxID, 4*units.Avax, 0, 2, k1, k2),
					out(issued.AssetID, 10, 0, 1, k1),
				}); err != nil {
					return fmt.Errorf("X BaseTx: %w", err)
				}
				for _, dest := range []ids.ID{n.XChainID, n.CChainID} {
					if _, err := w.P().IssueExportTx(dest, []*avax.TransferableOutput{out(avaxID, units.Avax, 0, 1, k1)}); err != nil {
						return fmt.Errorf("P ExportTx to %s: %w", dest, err)
					}
				}
				for _, dest := range []ids.ID{n.PChainID, n.CChainID} {
					if _, err := w.X().IssueExportTx(dest, []*avax.TransferableOutput{out(avaxID, 2*units.Avax, 0, 1, k1)}); err != nil {
						return fmt.Errorf("X ExportTx to %s: %w", dest, err)
					}
				}
				for _, dest := range []ids.ID{n.PChainID, n.XChainID} {
					if _, err := w.C().IssueExportTx(dest, []*secp256k1fx.TransferOutput{{Amt: units.Avax,
						OutputOwners: secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{k1}}}}); err != nil {
						return fmt.Errorf("C ExportTx to %s: %w", dest, err)
					}
				}
				return nil
			})
		}()
	})
	if utxoExtras.err != nil {
		t.Fatalf("issuing the UTXO lists' outputs: %v", utxoExtras.err)
	}
	return utxoExtras.k1, utxoExtras.k2
}

// chainCodecs decode a UTXO in the encoding of the chain that made it.
func decodeUTXO(chain internal.Chain, b []byte) (*avax.UTXO, error) {
	u := &avax.UTXO{}
	var err error
	switch chain {
	case internal.PChain:
		_, err = ptxs.Codec.Unmarshal(b, u)
	case internal.XChain:
		_, err = builder.Parser.Codec().Unmarshal(b, u)
	default:
		_, err = atomic.Codec.Unmarshal(b, u)
	}
	return u, err
}

// ownersOf returns the owners of any output the chains hold.
func ownersOf(out verify.State) secp256k1fx.OutputOwners {
	if lo, ok := out.(*stakeable.LockOut); ok {
		out = lo.TransferableOut
	}
	switch o := out.(type) {
	case *secp256k1fx.TransferOutput:
		return o.OutputOwners
	case *secp256k1fx.MintOutput:
		return o.OutputOwners
	case *nftfx.MintOutput:
		return o.OutputOwners
	case *nftfx.TransferOutput:
		return o.OutputOwners
	case *propertyfx.MintOutput:
		return o.OutputOwners
	case *propertyfx.OwnedOutput:
		return o.OutputOwners
	}
	return secp256k1fx.OutputOwners{}
}

// meets reports whether addrs are enough of owners to spend.
func meets(owners secp256k1fx.OutputOwners, addrs []ids.ShortID) bool {
	n := 0
	for _, a := range owners.Addrs {
		if slices.Contains(addrs, a) {
			n++
		}
	}
	return n > 0 && n >= int(owners.Threshold)
}

// wantUTXO is a UTXO the node says a list holds.
type wantUTXO struct {
	bytes             []byte
	created, consumed ids.ID
	staked            bool
}

// nodeLists asks the node, at one moment, what each chain's list holds.
type nodeLists struct {
	t   *testing.T
	n   *testnet.Network
	pc  *platformvm.Client
	xc  *avm.Client
	cc  client.Client
	ids map[internal.Chain]ids.ID
	// stakes are the current stakers' stake outputs.
	stakes []stakeBytes
	// bytes are the node's bytes of the UTXOs read.
	bytes map[ids.ID][]byte
}

type stakeBytes struct {
	id    ids.ID
	utxo  *avax.UTXO
	bytes []byte
}

func newNodeLists(t *testing.T, n *testnet.Network) *nodeLists {
	t.Helper()
	cc := client.NewCChainClient(n.URL)
	l := &nodeLists{t: t, n: n, pc: platformvm.NewClient(n.URL), xc: avm.NewClient(n.URL, "X"), cc: cc,
		ids:   map[internal.Chain]ids.ID{internal.PChain: n.PChainID, internal.XChain: n.XChainID, internal.CChain: n.CChainID},
		bytes: map[ids.ID][]byte{}}
	l.readStakes()
	return l
}

// readStakes reads the stake outputs of every current primary-network
// validator and delegator from their txs: staked, they are in no UTXO set.
func (l *nodeLists) readStakes() {
	ctx := context.Background()
	vs, err := l.pc.GetCurrentValidators(ctx, constants.PrimaryNetworkID, nil)
	if err != nil {
		l.t.Fatal(err)
	}
	var stakers []ids.ID
	for _, v := range vs {
		stakers = append(stakers, v.TxID)
		one, err := l.pc.GetCurrentValidators(ctx, constants.PrimaryNetworkID, []ids.NodeID{v.NodeID})
		if err != nil {
			l.t.Fatal(err)
		}
		for _, o := range one {
			for _, d := range o.Delegators {
				stakers = append(stakers, d.TxID)
			}
		}
	}
	for _, txID := range stakers {
		b, err := l.pc.GetTx(ctx, txID)
		if err != nil {
			l.t.Fatalf("platform.getTx(staker %s): %v", txID, err)
		}
		tx, err := ptxs.Parse(ptxs.Codec, b)
		if err != nil {
			// Genesis validators' txs are in the genesis codec.
			if tx, err = ptxs.Parse(ptxs.GenesisCodec, b); err != nil {
				l.t.Fatal(err)
			}
		}
		st, ok := tx.Unsigned.(ptxs.PermissionlessStaker)
		if !ok {
			continue
		}
		outs := st.Outputs()
		for i, o := range st.Stake() {
			u := &avax.UTXO{UTXOID: avax.UTXOID{TxID: txID, OutputIndex: uint32(len(outs) + i)}, Asset: o.Asset, Out: o.Out}
			ub, err := ptxs.Codec.Marshal(ptxs.CodecVersion, u)
			if err != nil {
				l.t.Fatal(err)
			}
			l.stakes = append(l.stakes, stakeBytes{u.InputID(), u, ub})
		}
	}
}

// utxos returns the UTXOs of addrs that chain's getUTXOs lists with
// sourceChain source ("" for its own set), by id, with the owners.
func (l *nodeLists) utxos(chain, source internal.Chain, addrs []ids.ShortID) map[ids.ID]*avax.UTXO {
	l.t.Helper()
	ctx := context.Background()
	src := ""
	if source != "" {
		src = l.ids[source].String()
	}
	out := map[ids.ID]*avax.UTXO{}
	var (
		startAddr ids.ShortID
		startUTXO ids.ID
	)
	const limit = 1024
	for {
		var (
			raw [][]byte
			err error
		)
		switch chain {
		case internal.PChain:
			raw, startAddr, startUTXO, err = l.pc.GetAtomicUTXOs(ctx, addrs, src, limit, startAddr, startUTXO)
		case internal.XChain:
			raw, startAddr, startUTXO, err = l.xc.GetAtomicUTXOs(ctx, addrs, src, limit, startAddr, startUTXO)
		default:
			raw, startAddr, startUTXO, err = l.cc.GetAtomicUTXOs(ctx, addrs, src, limit, startAddr, startUTXO)
		}
		if err != nil {
			l.t.Fatalf("%s-chain getUTXOs(sourceChain %q): %v", chain, src, err)
		}
		made := chain
		if source != "" {
			made = source
		}
		for _, b := range raw {
			u, err := decodeUTXO(made, b)
			if err != nil {
				l.t.Fatalf("decoding a UTXO of %s-chain getUTXOs: %v", chain, err)
			}
			out[u.InputID()] = u
			l.bytes[u.InputID()] = b // compared as the node served them
		}
		if len(raw) < limit {
			return out
		}
	}
}

// want returns what the node says the list of chain holds for addrs:
// the UTXOs created on it and those exported to it, unspent (staked ones
// included), that addrs can spend.
func (l *nodeLists) want(chain internal.Chain, addrs []ids.ShortID) map[ids.ID]wantUTXO {
	out := map[ids.ID]wantUTXO{}
	add := func(us map[ids.ID]*avax.UTXO, created, consumed internal.Chain) {
		for id, u := range us {
			if meets(ownersOf(u.Out), addrs) {
				out[id] = wantUTXO{bytes: l.bytes[id], created: l.ids[created], consumed: l.ids[consumed]}
			}
		}
	}
	if chain != internal.CChain {
		add(l.utxos(chain, "", addrs), chain, chain)
	}
	for _, other := range []internal.Chain{internal.PChain, internal.XChain, internal.CChain} {
		if other == chain {
			continue
		}
		add(l.utxos(chain, other, addrs), other, chain) // exported to chain
		add(l.utxos(other, chain, addrs), chain, other) // exported by chain
	}
	if chain == internal.PChain {
		for _, s := range l.stakes {
			if meets(ownersOf(s.utxo.Out), addrs) {
				out[s.id] = wantUTXO{bytes: s.bytes, created: l.n.PChainID, consumed: l.n.PChainID, staked: true}
			}
		}
	}
	return out
}

// listed is one item of a UTXO list as avaindex answered it.
type listed struct {
	ID                ids.ID
	Bytes             []byte
	Created, Consumed ids.ID
	Staked            bool
	ConsumingTx       string
	Timestamp         int64
	Amount            uint64
	AssetID           string
	raw               json.RawMessage
}

// utxoClient pages through avaindex's UTXO lists and checks every body
// against the reference document.
type utxoClient struct {
	t    *testing.T
	base string
	doc  *openapitest.Doc
}

const utxosPath = "/v1/networks/{network}/blockchains/{blockchainId}/utxos"

// list returns every item of chain's list for addrs with the query
// parameters extra, paging with pageSize; post uses the POST form.
func (c *utxoClient) list(chain string, addrs []string, extra url.Values, pageSize int, post bool) []listed {
	c.t.Helper()
	var out []listed
	token := ""
	for pages := 0; ; pages++ {
		if pages > 20000 {
			c.t.Fatal("the list does not end")
		}
		q := url.Values{}
		for k, v := range extra {
			q[k] = v
		}
		q.Set("pageSize", strconv.Itoa(pageSize))
		if token != "" {
			q.Set("pageToken", token)
		}
		target := c.base + "/v1/networks/testnet/blockchains/" + chain + "/utxos"
		var (
			resp *http.Response
			err  error
		)
		if post {
			body, _ := json.Marshal(map[string]string{"addresses": strings.Join(addrs, ",")})
			resp, err = http.Post(target+"?"+q.Encode(), "application/json", bytes.NewReader(body))
		} else {
			q.Set("addresses", strings.Join(addrs, ","))
			resp, err = http.Get(target + "?" + q.Encode())
		}
		if err != nil {
			c.t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			c.t.Fatal(err)
		}
		method := "GET"
		if post {
			method = "POST"
		}
		if resp.StatusCode != 200 {
			c.t.Fatalf("%s %s: %d %s", method, target, resp.StatusCode, b)
		}
		c.doc.ValidateResponse(c.t, method, utxosPath, 200, b)
		if chain == "p-chain" {
			c.doc.ValidateSchema(c.t, "ListPChainUtxosResponse", b)
		} else {
			c.doc.ValidateSchema(c.t, "ListUtxosResponse", b)
		}
		var page struct {
			NextPageToken string            `json:"nextPageToken"`
			Utxos         []json.RawMessage `json:"utxos"`
			ChainInfo     struct{ ChainName, Network string }
		}
		if err := json.Unmarshal(b, &page); err != nil {
			c.t.Fatal(err)
		}
		if page.ChainInfo.ChainName != chain || page.ChainInfo.Network != "testnet" {
			c.t.Errorf("chainInfo %+v", page.ChainInfo)
		}
		if len(page.Utxos) > pageSize {
			c.t.Fatalf("a page of %d items for pageSize %d", len(page.Utxos), pageSize)
		}
		for _, raw := range page.Utxos {
			out = append(out, c.item(chain, raw))
		}
		if page.NextPageToken == "" {
			return out
		}
		token = page.NextPageToken
	}
}

func (c *utxoClient) item(chain string, raw json.RawMessage) listed {
	c.t.Helper()
	var it struct {
		UtxoID            ids.ID `json:"utxoId"`
		UtxoBytes         string `json:"utxoBytes"`
		CreatedOnChainID  ids.ID `json:"createdOnChainId"`
		ConsumedOnChainID ids.ID `json:"consumedOnChainId"`
		Staked            bool   `json:"staked"`
		ConsumingTxHash   string `json:"consumingTxHash"`
		BlockTimestamp    int64  `json:"blockTimestamp"`
		Timestamp         int64  `json:"timestamp"`
		Asset             struct {
			AssetID string `json:"assetId"`
			Amount  string `json:"amount"`
		} `json:"asset"`
	}
	if err := json.Unmarshal(raw, &it); err != nil {
		c.t.Fatalf("%v in %s", err, raw)
	}
	b, err := hex.DecodeString(strings.TrimPrefix(it.UtxoBytes, "0x"))
	if err != nil {
		c.t.Fatalf("utxoBytes %q: %v", it.UtxoBytes, err)
	}
	amount, err := strconv.ParseUint(it.Asset.Amount, 10, 64)
	if err != nil {
		c.t.Fatal(err)
	}
	l := listed{ID: it.UtxoID, Bytes: b, Created: it.CreatedOnChainID, Consumed: it.ConsumedOnChainID, Staked: it.Staked,
		ConsumingTx: it.ConsumingTxHash, Timestamp: it.Timestamp, Amount: amount, AssetID: it.Asset.AssetID, raw: raw}
	if chain == "p-chain" {
		l.Timestamp = it.BlockTimestamp
	}
	return l
}

func ids2(items []listed) []ids.ID {
	out := make([]ids.ID, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

// bech32Of returns the network's bare bech32 form of addrs.
func bech32Of(t *testing.T, n *testnet.Network, addrs ...ids.ShortID) []string {
	t.Helper()
	out := make([]string, len(addrs))
	for i, a := range addrs {
		s, err := address.FormatBech32(n.HRP, a[:])
		if err != nil {
			t.Fatal(err)
		}
		out[i] = s
	}
	return out
}

var chainAliases = map[internal.Chain]string{internal.PChain: "p-chain", internal.XChain: "x-chain", internal.CChain: "c-chain"}

// everyHolder returns every address that ever held a P- or X-chain output
// (genesis, rewards and imports included) or an atomic UTXO of the
// scenario.
func everyHolder(t *testing.T, n *testnet.Network, extra ...ids.ShortID) []ids.ShortID {
	t.Helper()
	ctx := context.Background()
	seen := map[ids.ShortID]bool{}
	var out []ids.ShortID
	add := func(a ids.ShortID) {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	for _, a := range readBalanceFixtures(t, n).addrs {
		add(a)
	}
	xTip, err := node.New(n.URL).XHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g, ok, err := xchain.GenesisFor(n.XChainID)
	if err != nil || !ok {
		t.Fatalf("X-chain genesis: %t %v", ok, err)
	}
	for _, u := range g.UTXOs {
		for _, a := range u.Owners.Addrs {
			add(a)
		}
	}
	xc := avm.NewClient(n.URL, "X")
	for h := uint64(0); h <= xTip; h++ {
		b, err := xc.GetBlockByHeight(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := xchain.Decode(h, b, g)
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range blk.Txs {
			for _, u := range tx.UTXOs.Produced {
				for _, a := range u.Owners.Addrs {
					add(a)
				}
			}
		}
	}
	for _, a := range extra {
		add(a)
	}
	return out
}

// waitAllIndexed waits until avaindex's store at dsn has indexed every
// chain to the node's tips, and returns the P-chain's.
func waitAllIndexed(t *testing.T, n *testnet.Network, dsn string) uint64 {
	t.Helper()
	ctx := context.Background()
	nc := node.New(n.URL)
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var pTip uint64
	for _, c := range []internal.Chain{internal.PChain, internal.XChain, internal.CChain} {
		var tip uint64
		switch c {
		case internal.PChain:
			tip, err = nc.PHeight(ctx)
			pTip = tip
		case internal.XChain:
			tip, err = nc.XHeight(ctx)
		default:
			tip, err = nc.CHeight(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		waitCursor(t, st, c, tip)
	}
	return pTip
}

// TestUTXOListsMatchNode compares avaindex's UTXO lists (GET and POST
// .../utxos) with the node, on both stores: for every address that ever
// held funds, on each chain, the unspent UTXOs listed (all pages) are what
// the node's getUTXOs serve for the chain's own set, for the atomic UTXOs
// exported to it and those it exported (the chain's list holds both), and
// the current stakers' stake, once the threshold rule is applied; bytes
// included. Spent UTXOs are consumed by the tx named; filters, orders and
// page sizes select and order the same items.
func TestUTXOListsMatchNode(t *testing.T) {
	n, issued := issuedNetwork(t)
	k1, k2 := issueUTXOExtras(t, n, issued)
	doc := openapitest.Default(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn, "--network-alias", "testnet")
		c := &utxoClient{t: t, base: base, doc: doc}
		// The P-chain moves when another test's staker ends: compare again
		// when it moved during a comparison that failed.
		var problems []string
		for attempt := 0; attempt < 3; attempt++ {
			tip := waitAllIndexed(t, n, dsn)
			problems = compareUTXOLists(t, n, c, everyHolder(t, n, k1, k2), k1, k2)
			now, err := platformvm.NewClient(n.URL).GetHeight(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) == 0 || now == tip {
				break
			}
		}
		for _, p := range problems {
			t.Error(p)
		}
		checkUTXOListOrders(t, n, c, k1)
		checkSpent(t, n, c)
		checkUTXOListErrors(t, n, c)
	})
}

func compareUTXOLists(t *testing.T, n *testnet.Network, c *utxoClient, holders []ids.ShortID, k1, k2 ids.ShortID) []string {
	var problems []string
	nl := newNodeLists(t, n)
	compare := func(what string, got []listed, want map[ids.ID]wantUTXO) {
		seen := map[ids.ID]bool{}
		for _, g := range got {
			if seen[g.ID] {
				problems = append(problems, fmt.Sprintf("%s: UTXO %s listed twice", what, g.ID))
			}
			seen[g.ID] = true
			w, ok := want[g.ID]
			switch {
			case !ok:
				problems = append(problems, fmt.Sprintf("%s: avaindex lists %s, the node does not: %s", what, g.ID, g.raw))
			case !bytes.Equal(g.Bytes, w.bytes):
				problems = append(problems, fmt.Sprintf("%s: UTXO %s bytes %x, the node's %x", what, g.ID, g.Bytes, w.bytes))
			case g.Created != w.created || g.Consumed != w.consumed || g.Staked != w.staked || g.ConsumingTx != "":
				problems = append(problems, fmt.Sprintf("%s: UTXO %s is %s→%s staked %t spent by %q, want %s→%s staked %t unspent",
					what, g.ID, g.Created, g.Consumed, g.Staked, g.ConsumingTx, w.created, w.consumed, w.staked))
			}
		}
		for id := range want {
			if !seen[id] {
				problems = append(problems, fmt.Sprintf("%s: avaindex lacks the node's UTXO %s", what, id))
			}
		}
	}
	nonEmpty, items := map[internal.Chain]int{}, map[internal.Chain]int{}
	for _, chain := range []internal.Chain{internal.PChain, internal.XChain, internal.CChain} {
		alias := chainAliases[chain]
		for _, a := range holders {
			want := nl.want(chain, []ids.ShortID{a})
			got := c.list(alias, bech32Of(t, n, a), nil, 100, false)
			compare(fmt.Sprintf("%s list of %s", alias, a), got, want)
			if len(want) > 0 {
				nonEmpty[chain]++
			}
			items[chain] += len(got)
		}
		// Both owners together meet the threshold of their 2-of-2 output;
		// every holder at once, through the POST form.
		pair := []ids.ShortID{k1, k2}
		compare(alias+" list of k1 and k2", c.list(alias, bech32Of(t, n, k2, k1), nil, 3, false), nl.want(chain, pair))
		compare(alias+" list of every holder", c.list(alias, bech32Of(t, n, holders...), nil, 1024, true), nl.want(chain, holders))
		// POST lists what GET lists, in the same order.
		for _, spent := range []string{"false", "true"} {
			q := url.Values{"includeSpent": {spent}}
			get := c.list(alias, bech32Of(t, n, n.Addr), q, 100, false)
			post := c.list(alias, bech32Of(t, n, n.Addr), q, 1024, true)
			if !slices.Equal(ids2(get), ids2(post)) {
				problems = append(problems, fmt.Sprintf("%s list of the local key, includeSpent %s: POST %d items, GET %d, or another order",
					alias, spent, len(post), len(get)))
			}
		}
	}
	for _, chain := range []internal.Chain{internal.PChain, internal.XChain, internal.CChain} {
		if nonEmpty[chain] < 1 {
			problems = append(problems, fmt.Sprintf("no address holds anything on the %s list: the comparison covers nothing", chain))
		}
	}
	t.Logf("compared the lists of %d addresses: %d addresses hold %d UTXOs on P, %d hold %d on X, %d hold %d on C",
		len(holders), nonEmpty[internal.PChain], items[internal.PChain], nonEmpty[internal.XChain], items[internal.XChain],
		nonEmpty[internal.CChain], items[internal.CChain])
	// The threshold rule was exercised: k1 alone does not see the 2-of-2
	// outputs that k1 and k2 together do.
	alone, both := nl.want(internal.PChain, []ids.ShortID{k1}), nl.want(internal.PChain, []ids.ShortID{k1, k2})
	if len(both) <= len(alone) {
		problems = append(problems, fmt.Sprintf("k1 and k2 hold %d P-chain UTXOs, k1 alone %d: no 2-of-2 output", len(both), len(alone)))
	}
	return problems
}

// checkUTXOListOrders checks every sort order and filter on the local
// key's lists and k1's, and paging one item at a time. The P-chain moves
// when another test's staker ends (a reward UTXO to the local key): a
// list whose checks failed is checked again when it changed meanwhile.
func checkUTXOListOrders(t *testing.T, n *testnet.Network, c *utxoClient, k1 ids.ShortID) {
	for _, chain := range []string{"p-chain", "x-chain", "c-chain"} {
		for _, holder := range []ids.ShortID{n.Addr, k1} {
			addrs := bech32Of(t, n, holder)
			var problems []string
			for attempt := 0; attempt < 3; attempt++ {
				all := c.list(chain, addrs, url.Values{"includeSpent": {"true"}}, 100, false)
				problems = utxoListOrderProblems(t, n, c, chain, holder, addrs, all, holder == k1 || chain == "c-chain")
				after := c.list(chain, addrs, url.Values{"includeSpent": {"true"}}, 100, false)
				if len(problems) == 0 || slices.Equal(ids2(all), ids2(after)) {
					break
				}
			}
			for _, p := range problems {
				t.Error(p)
			}
		}
	}
}

// utxoListOrderProblems checks chain's list of holder (addrs, its bech32
// form) in every sort order, in pages of 100 (and of one when byOne), and
// filtered, against all, the list of every UTXO of it.
func utxoListOrderProblems(t *testing.T, n *testnet.Network, c *utxoClient, chain string, holder ids.ShortID, addrs []string, all []listed, byOne bool) []string {
	type key struct {
		k  uint64
		id ids.ID
	}
	if len(all) == 0 {
		return []string{fmt.Sprintf("%s list of %s is empty", chain, holder)}
	}
	var problems []string
	set := map[ids.ID]listed{}
	for _, it := range all {
		set[it.ID] = it
	}
	for _, sortBy := range []string{"timestamp", "amount", ""} {
		for _, order := range []string{"asc", "desc", ""} {
			q := url.Values{"includeSpent": {"true"}}
			if sortBy != "" {
				q.Set("sortBy", sortBy)
			}
			if order != "" {
				q.Set("sortOrder", order)
			}
			what := fmt.Sprintf("%s list of %s sorted by %q %q", chain, holder, sortBy, order)
			sizes := []int{100}
			if byOne {
				sizes = append(sizes, 1) // page to the end one at a time
			}
			for _, size := range sizes {
				got := c.list(chain, addrs, q, size, false)
				if len(got) != len(all) {
					problems = append(problems, fmt.Sprintf("%s, pages of %d: %d items, want %d", what, size, len(got), len(all)))
				}
				for i, it := range got {
					if _, ok := set[it.ID]; !ok {
						problems = append(problems, fmt.Sprintf("%s: %s is not in the list", what, it.ID))
					}
					if i == 0 {
						continue
					}
					a, b := key{uint64(got[i-1].Timestamp), got[i-1].ID}, key{uint64(it.Timestamp), it.ID}
					if sortBy == "amount" {
						a.k, b.k = got[i-1].Amount, it.Amount
					}
					rel := cmp.Or(cmp.Compare(a.k, b.k), bytes.Compare(a.id[:], b.id[:]))
					if (order != "asc" && rel <= 0) || (order == "asc" && rel >= 0) {
						problems = append(problems, fmt.Sprintf("%s, pages of %d: items %d and %d out of order (%v, %v)", what, size, i-1, i, a, b))
					}
				}
			}
		}
	}
	// Filters: a minimum amount, and an asset.
	amounts := make([]uint64, 0, len(all))
	for _, it := range all {
		amounts = append(amounts, it.Amount)
	}
	slices.Sort(amounts)
	least := amounts[len(amounts)/2]
	got := c.list(chain, addrs, url.Values{"includeSpent": {"true"}, "minUtxoAmount": {strconv.FormatUint(least, 10)}}, 100, false)
	want := 0
	for _, it := range all {
		if it.Amount >= least {
			want++
		}
	}
	for _, it := range got {
		if it.Amount < least {
			problems = append(problems, fmt.Sprintf("%s list of %s with minUtxoAmount %d has %d", chain, holder, least, it.Amount))
		}
	}
	if len(got) != want {
		problems = append(problems, fmt.Sprintf("%s list of %s with minUtxoAmount %d: %d items, want %d", chain, holder, least, len(got), want))
	}
	for _, asset := range []ids.ID{n.AVAXAssetID, issuedAsset(t)} {
		got := c.list(chain, addrs, url.Values{"includeSpent": {"true"}, "assetId": {asset.String()}}, 100, false)
		want := 0
		for _, it := range all {
			if it.AssetID == asset.String() {
				want++
			}
		}
		if len(got) != want {
			problems = append(problems, fmt.Sprintf("%s list of %s in asset %s: %d items, want %d", chain, holder, asset, len(got), want))
		}
		if chain == "x-chain" && want == 0 {
			problems = append(problems, fmt.Sprintf("%s list of %s holds nothing in asset %s: the filter is not exercised", chain, holder, asset))
		}
	}
	return problems
}

func issuedAsset(t *testing.T) ids.ID {
	t.Helper()
	if scenario.issued == nil {
		t.Fatal("no scenario")
	}
	return scenario.issued.AssetID
}

// checkSpent checks, for the local key's lists, that each spent UTXO is
// consumed by the tx named, on the chain named, as the node has it.
func checkSpent(t *testing.T, n *testnet.Network, c *utxoClient) {
	ctx := context.Background()
	pc, xc, cc := platformvm.NewClient(n.URL), avm.NewClient(n.URL, "X"), client.NewCChainClient(n.URL)
	inputs := map[string]set.Set[ids.ID]{}
	consumedBy := func(chain ids.ID, txID string) set.Set[ids.ID] {
		if s, ok := inputs[txID]; ok {
			return s
		}
		id, err := ids.FromString(txID)
		if err != nil {
			t.Fatal(err)
		}
		var s set.Set[ids.ID]
		switch chain {
		case n.PChainID:
			b, err := pc.GetTx(ctx, id)
			if err != nil {
				t.Fatalf("platform.getTx(%s): %v", id, err)
			}
			tx, err := ptxs.Parse(ptxs.Codec, b)
			if err != nil {
				t.Fatal(err)
			}
			s = tx.Unsigned.InputIDs()
		case n.XChainID:
			b, err := xc.GetTx(ctx, id)
			if err != nil {
				t.Fatalf("avm.getTx(%s): %v", id, err)
			}
			tx, err := xchain.ParseTx(b)
			if err != nil {
				t.Fatal(err)
			}
			s = tx.Unsigned.InputIDs()
		default:
			b, err := cc.GetAtomicTx(ctx, id)
			if err != nil {
				t.Fatalf("avax.getAtomicTx(%s): %v", id, err)
			}
			tx, err := atomic.ExtractAtomicTx(b, atomic.Codec)
			if err != nil {
				t.Fatal(err)
			}
			s = tx.UnsignedAtomicTx.InputUTXOs()
		}
		inputs[txID] = s
		return s
	}
	for _, chain := range []string{"p-chain", "x-chain", "c-chain"} {
		all := c.list(chain, bech32Of(t, n, n.Addr), url.Values{"includeSpent": {"true"}}, 100, false)
		unspent := c.list(chain, bech32Of(t, n, n.Addr), nil, 100, false)
		spent := 0
		for _, it := range all {
			if it.ConsumingTx == "" {
				continue
			}
			spent++
			if in := consumedBy(it.Consumed, it.ConsumingTx); !in.Contains(it.ID) {
				t.Errorf("%s: UTXO %s is listed as consumed by %s on %s, which does not spend it", chain, it.ID, it.ConsumingTx, it.Consumed)
			}
		}
		if spent+len(unspent) != len(all) || spent == 0 {
			t.Errorf("%s list of the local key: %d items with spent ones, %d spent, %d unspent", chain, len(all), spent, len(unspent))
		}
	}
}

// checkUTXOListErrors checks that bad inputs are 400s naming the
// parameter, in the documented error body.
func checkUTXOListErrors(t *testing.T, n *testnet.Network, c *utxoClient) {
	var many []string
	for i := range 65 {
		many = append(many, bech32Of(t, n, ids.ShortID{byte(i), 7})...)
	}
	list := c.base + "/v1/networks/testnet/blockchains/p-chain/utxos"
	a := n.Address
	_, body, _ := get(t, list+"?pageSize=1&addresses="+a)
	var first struct {
		NextPageToken string `json:"nextPageToken"`
	}
	if err := json.Unmarshal(body, &first); err != nil || first.NextPageToken == "" {
		t.Fatalf("no nextPageToken in %s", body)
	}
	for _, tc := range []struct{ url, param string }{
		{list, "addresses"},
		{list + "?addresses=" + strings.Join(many, ","), "addresses"},
		{list + "?addresses=P-fuji1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq", "addresses"},
		{list + "?addresses=" + a + "&pageSize=101", "pageSize"},
		{list + "?addresses=" + a + "&includeSpent=1", "includeSpent"},
		{list + "?addresses=" + a + "&sortBy=size", "sortBy"},
		{list + "?addresses=" + a + "&sortOrder=random", "sortOrder"},
		{list + "?addresses=" + a + "&minUtxoAmount=lots", "minUtxoAmount"},
		{list + "?addresses=" + a + "&assetId=AVAX", "assetId"},
		{c.base + "/v1/networks/testnet/blockchains/x-chain/utxos?addresses=" + a + "&pageToken=" + url.QueryEscape(first.NextPageToken), "pageToken"},
		{c.base + "/v1/networks/testnet/blockchains/" + n.CChainID.String() + "x/utxos?addresses=" + a, "blockchainId"},
	} {
		status, body, _ := get(t, tc.url)
		var e struct {
			Message    string `json:"message"`
			StatusCode int    `json:"statusCode"`
		}
		if err := json.Unmarshal(body, &e); err != nil || status != 400 || e.StatusCode != 400 || !strings.Contains(e.Message, tc.param) {
			t.Errorf("GET %s = %d %s; want 400 naming %s", tc.url, status, body, tc.param)
		}
		c.doc.ValidateResponse(t, "GET", utxosPath, status, body)
	}
	for _, tc := range []struct{ query, body, param string }{
		{"", `{"addresses": ""}`, "addresses"},
		{"", `{"addr": "` + a + `"}`, "addresses"},
		{"?pageSize=1025", `{"addresses": "` + a + `"}`, "pageSize"},
		{"", `[1]`, "request body"},
	} {
		resp, err := http.Post(list+tc.query, "application/json", strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(b), tc.param) {
			t.Errorf("POST %s %s = %d %s; want 400 naming %s", tc.query, tc.body, resp.StatusCode, b, tc.param)
		}
		c.doc.ValidateResponse(t, "POST", utxosPath, resp.StatusCode, b)
	}
}
