package tests

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"
	"github.com/ava-labs/libevm/core/types"

	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/contracts"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/evmcode"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// evmRun is what the EVM scenarios did on the local network's C-chain,
// once per test process: the test contracts' scenario, then evmcode's
// (Teleporter events, self-destructs, atomic export and import).
type evmRun struct {
	s    *contracts.Scenario
	code *evmcode.Scenario
	// head is the C-chain's height after both.
	head uint64
	// blocks are the node's blocks s.First-1..head, by number.
	blocks map[uint64]nodeEVMBlock
}

// nodeEVMBlock is what the node says of a block (its hash as the node
// has it: coreth's header fields are not all libevm's).
type nodeEVMBlock struct {
	Hash    common.Hash
	Time    uint64
	BaseFee *big.Int
}

var evmScenarioOnce struct {
	once sync.Once
	run  evmRun
	err  error
}

// evmScenario runs both EVM scenarios on the local network once per
// process and returns what they did.
func evmScenario(t *testing.T) (*testnet.Network, *evmRun) {
	t.Helper()
	n := testnet.Get(t)
	o := &evmScenarioOnce
	o.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		r := &o.run
		if r.s, o.err = contracts.Run(ctx, n); o.err != nil {
			return
		}
		if r.code, o.err = evmcode.Run(ctx, n); o.err != nil {
			return
		}
		ec, err := n.EthClient(ctx)
		if err != nil {
			o.err = err
			return
		}
		defer ec.Close()
		if r.head, o.err = ec.BlockNumber(ctx); o.err != nil {
			return
		}
		r.blocks = map[uint64]nodeEVMBlock{}
		for h := r.s.First - 1; h <= r.head; h++ {
			var b struct {
				Hash          common.Hash    `json:"hash"`
				Timestamp     hexutil.Uint64 `json:"timestamp"`
				BaseFeePerGas *hexutil.Big   `json:"baseFeePerGas"`
			}
			if o.err = n.Call(ctx, "/ext/bc/C/rpc", "eth_getBlockByNumber", []any{hexutil.Uint64(h), false}, &b); o.err != nil {
				return
			}
			r.blocks[h] = nodeEVMBlock{Hash: b.Hash, Time: uint64(b.Timestamp), BaseFee: b.BaseFeePerGas.ToInt()}
		}
	})
	if o.err != nil {
		t.Fatalf("the EVM scenarios: %v", o.err)
	}
	return n, &o.run
}

// touched are the addresses whose native balance the scenarios changed.
func (r *evmRun) touched() []common.Address {
	c := r.code
	return append(r.s.Touched(), c.Recipient, c.Emitter, c.Forwarder, c.Factory, c.Child, c.Destructor, c.SelfDestructor)
}

// nodeBalances asks the node for the balance of each address at every
// block since the scenarios began: by address, by block number.
func (r *evmRun) nodeBalances(t *testing.T, n *testnet.Network, addrs []common.Address) map[common.Address]map[uint64]string {
	t.Helper()
	ec, err := n.EthClient(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	out := map[common.Address]map[uint64]string{}
	for _, a := range addrs {
		out[a] = map[uint64]string{}
		for h := r.s.First - 1; h <= r.head; h++ {
			v, err := ec.BalanceAt(t.Context(), a, new(big.Int).SetUint64(h))
			if err != nil {
				t.Fatal(err)
			}
			out[a][h] = v.String()
		}
	}
	return out
}

// waitEVMIndexed waits until the store at dsn has indexed the EVM chain
// up to height.
func waitEVMIndexed(t *testing.T, dsn string, chainID, height uint64) {
	t.Helper()
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		h, ok, err := st.Cursor(context.Background(), store.EVMCursor(chainID))
		if err != nil {
			t.Fatal(err)
		}
		if ok && h >= height {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the EVM chain %d was not indexed up to %d (at %d, %t)", chainID, height, h, ok)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// getValid returns a GET of path with the query q from the service at
// base that wants a 200 valid against doc, decoded into out.
func getValid(t *testing.T, base string, doc *openapitest.Doc) func(path string, q url.Values, out any) {
	return func(path string, q url.Values, out any) {
		t.Helper()
		u := base + path
		if len(q) > 0 {
			u += "?" + q.Encode()
		}
		status, body, _ := get(t, u)
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", u, status, body)
		}
		doc.ValidateResponse(t, "GET", path, status, body)
		if err := json.Unmarshal(body, out); err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
	}
}

// listedTransfer is any of Erc20Transfer, Erc721Transfer and
// Erc1155Transfer, as listed.
type listedTransfer struct {
	api.TransferBlock
	From         api.RichAddress   `json:"from"`
	To           api.RichAddress   `json:"to"`
	LogIndex     uint32            `json:"logIndex"`
	Value        string            `json:"value"`
	Erc20Token   *api.Erc20Token   `json:"erc20Token"`
	Erc721Token  *api.Erc721Token  `json:"erc721Token"`
	Erc1155Token *api.Erc1155Token `json:"erc1155Token"`
}

// TestEVMEndpointsMatchScenario runs the test contracts' scenario and
// evmcode's on the local network's C-chain and checks every EVM endpoint
// of the Data API, on both stores, against what the scenarios did: the
// chain, the contracts' metadata and deployments, the token transfers by
// address and by token, and the native balance of every touched address
// at every block since the scenarios began against the node's
// eth_getBalance at that block. Every body is validated against the
// reference OpenAPI document.
func TestEVMEndpointsMatchScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network")
	}
	n, r := evmScenario(t)
	s, code := r.s, r.code
	doc := openapitest.Default(t)

	// The node's balances of every touched address at every block.
	touched := r.touched()
	nodeBalance := r.nodeBalances(t, n, touched)
	// The test's own expectations must be able to fail: the balances
	// change where the scenario says.
	if nodeBalance[s.Alice][s.Last] == nodeBalance[s.Alice][s.First-1] || nodeBalance[s.ChildCreate2][s.Last] != s.ChildValue.String() {
		t.Fatalf("the node's balances do not show the scenario: Alice %v, the CREATE2 child %v", nodeBalance[s.Alice], nodeBalance[s.ChildCreate2])
	}
	chainID := strconv.FormatUint(n.EVMChainID, 10)
	me := n.EthAddr

	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, n.URL, dsn, "--teleporter-address", code.Emitter.Hex())
		waitEVMIndexed(t, dsn, n.EVMChainID, r.head)
		getJSON := getValid(t, base, doc)
		cbase := "/v1/chains/" + chainID

		// The chain, listed and by its EVM and its blockchain id.
		var list api.ListChainsResponse
		getJSON("/v1/chains", nil, &list)
		i := slices.IndexFunc(list.Chains, func(c api.EVMChainInfo) bool { return c.ChainID == chainID })
		if i < 0 {
			t.Fatalf("GET /v1/chains lacks %s: %+v", chainID, list.Chains)
		}
		// The registry checks the chain's status every 5 s: it is OK once
		// the index has caught up with the node.
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			var c api.EVMChainInfo
			getJSON("/v1/chains/"+chainID, nil, &c)
			if c.Status == "OK" || time.Now().After(deadline) {
				break
			}
		}
		getJSON("/v1/chains", nil, &list)
		i = slices.IndexFunc(list.Chains, func(c api.EVMChainInfo) bool { return c.ChainID == chainID })
		if i < 0 || list.Chains[i].Status != "OK" {
			t.Fatalf("GET /v1/chains: %s is not listed as OK: %+v", chainID, list.Chains)
		}
		for _, id := range []string{chainID, n.CChainID.String()} {
			var c api.EVMChainInfo
			getJSON("/v1/chains/"+id, nil, &c)
			if c.ChainID != chainID || c.Status != "OK" || c.PlatformChainID != n.CChainID.String() || c.VMName != "EVM" ||
				c.NetworkToken.Symbol != "AVAX" || c.NetworkToken.Decimals != 18 {
				t.Errorf("GET /v1/chains/%s = %+v", id, c)
			}
			if c.ChainID != list.Chains[i].ChainID || c.PlatformChainID != list.Chains[i].PlatformChainID {
				t.Errorf("GET /v1/chains/%s = %+v, listed as %+v", id, c, list.Chains[i])
			}
		}

		// The contracts' metadata.
		receipt := func(step string) *types.Receipt { return s.Receipts[step] }
		for _, c := range []struct {
			addr              common.Address
			typ, name, symbol string
			decimals          *int
			step              string
			deployerContract  common.Address
		}{
			{s.Token20.Address, "ERC-20", s.Token20.Name, s.Token20.Symbol, ptrTo(int(s.Token20.Decimals)), "deploy erc20", common.Address{}},
			{s.NFT721.Address, "ERC-721", s.NFT721.Name, s.NFT721.Symbol, nil, "deploy erc721", common.Address{}},
			{s.Multi1155.Address, "ERC-1155", s.Multi1155.Name, s.Multi1155.Symbol, nil, "deploy erc1155", common.Address{}},
			{s.Factory, "UNKNOWN", "", "", nil, "deploy factory", common.Address{}},
			{s.ChildCreate, "UNKNOWN", "", "", nil, "factory create", s.Factory},
			{s.ChildCreate2, "UNKNOWN", "", "", nil, "factory create2", s.Factory},
		} {
			var m api.ContractMetadata
			getJSON(cbase+"/addresses/"+c.addr.Hex(), nil, &m)
			want := &api.ContractDeploymentDetails{TxHash: s.Tx(c.step).Hex(), DeployerAddress: me.Hex()}
			if c.deployerContract != (common.Address{}) {
				want.DeployerContractAddress = c.deployerContract.Hex()
			}
			if m.Address != c.addr.Hex() || m.ERCType != c.typ || m.Name != c.name || m.Symbol != c.symbol ||
				intOrNil(m.Decimals) != intOrNil(c.decimals) || m.DeploymentDetails == nil || *m.DeploymentDetails != *want {
				t.Errorf("the metadata of %s (%s) = %+v, deployment %+v; want %s %q %q, deployment %+v", c.addr, c.step, m, m.DeploymentDetails, c.typ, c.name, c.symbol, want)
			}
		}

		// Deployment transactions: top level, and by CREATE and CREATE2
		// with the value the children were endowed with.
		for _, c := range []struct {
			addr       common.Address
			step       string
			to         common.Address
			callType   string
			value      string
			internalTy string
		}{
			{s.Token20.Address, "deploy erc20", s.Token20.Address, "CONTRACT_CREATION", "0", ""},
			{s.Multi1155.Address, "deploy erc1155", s.Multi1155.Address, "CONTRACT_CREATION", "0", ""},
			{s.ChildCreate, "factory create", s.Factory, "CONTRACT_CALL", s.ChildValue.String(), "CREATE"},
			{s.ChildCreate2, "factory create2", s.Factory, "CONTRACT_CALL", s.ChildValue.String(), "CREATE2"},
		} {
			var d api.GetTransactionResponse
			getJSON(cbase+"/contracts/"+c.addr.Hex()+"/transactions:getDeployment", nil, &d)
			rc := receipt(c.step)
			hdr := r.blocks[rc.BlockNumber.Uint64()]
			nt := d.NativeTransaction
			if nt.TxHash != rc.TxHash.Hex() || nt.BlockNumber != rc.BlockNumber.String() || nt.BlockHash != rc.BlockHash.Hex() ||
				nt.BlockTimestamp != int64(hdr.Time) || nt.ChainID != chainID || nt.GasUsed != strconv.FormatUint(rc.GasUsed, 10) ||
				nt.TxStatus != "1" || nt.From.Address != me.Hex() || nt.To.Address != c.to.Hex() || nt.Value != c.value ||
				nt.Method == nil || nt.Method.CallType != c.callType || nt.BaseFeePerGas != hdr.BaseFee.String() {
				t.Errorf("the deployment of %s (%s) = %+v; receipt %+v", c.addr, c.step, nt, rc)
			}
			if c.internalTy != "" && !slices.ContainsFunc(d.InternalTransactions, func(it api.InternalTransactionDetails) bool {
				return it.InternalTxType == c.internalTy && it.From.Address == s.Factory.Hex() && it.To.Address == c.addr.Hex() &&
					it.Value == s.ChildValue.String() && !it.IsReverted
			}) {
				t.Errorf("the deployment of %s has no %s frame of %s from the factory: %+v", c.addr, c.internalTy, s.ChildValue, d.InternalTransactions)
			}
			if len(d.Erc20Transfers)+len(d.Erc721Transfers)+len(d.Erc1155Transfers) != 0 {
				t.Errorf("the deployment of %s lists token transfers: %+v", c.addr, d)
			}
		}

		// Deployments: the key's (every page, newest first) include the
		// scenario's four in order; the factory's are its two children.
		var deployed []string
		q := url.Values{"pageSize": {"2"}}
		for range 100 {
			var p api.ListContractsResponse
			getJSON(cbase+"/contracts/"+me.Hex()+"/deployments", q, &p)
			for _, c := range p.Contracts {
				deployed = append(deployed, c.Address)
			}
			if p.NextPageToken == "" {
				break
			}
			q.Set("pageToken", p.NextPageToken)
		}
		var idx []int
		for _, a := range []common.Address{s.Factory, s.Multi1155.Address, s.NFT721.Address, s.Token20.Address} {
			idx = append(idx, slices.Index(deployed, a.Hex()))
		}
		if slices.Contains(idx, -1) || !slices.IsSorted(idx) {
			t.Errorf("the key's deployments %v: the scenario's at %v, want all, newest first", deployed, idx)
		}
		var fp api.ListContractsResponse
		getJSON(cbase+"/contracts/"+s.Factory.Hex()+"/deployments", nil, &fp)
		if len(fp.Contracts) != 2 || fp.Contracts[0].Address != s.ChildCreate2.Hex() || fp.Contracts[1].Address != s.ChildCreate.Hex() {
			t.Errorf("the factory's deployments = %+v, want %s then %s", fp.Contracts, s.ChildCreate2, s.ChildCreate)
		}

		// Token transfers: what the scenario did, newest first (a batch's
		// last item first).
		want := func(keep func(contracts.Transfer) bool) []contracts.Transfer {
			var out []contracts.Transfer
			for _, tr := range slices.Backward(s.Transfers) {
				if keep(tr) {
					out = append(out, tr)
				}
			}
			return out
		}
		check := func(what string, got []listedTransfer, want []contracts.Transfer) {
			t.Helper()
			if len(got) != len(want) {
				t.Errorf("%s: %d transfers, the scenario made %d: %+v", what, len(got), len(want), got)
				return
			}
			for i, w := range want {
				g := got[i]
				hdr := r.blocks[w.Block]
				var addr, tokenID, value, name, symbol string
				switch {
				case w.Standard == contracts.ERC20 && g.Erc20Token != nil:
					addr, value, name, symbol = g.Erc20Token.Address, g.Value, g.Erc20Token.Name, g.Erc20Token.Symbol
					if g.Erc20Token.Decimals != 18 || g.Erc20Token.ERCType != "ERC-20" {
						t.Errorf("%s #%d: token %+v", what, i, g.Erc20Token)
					}
				case w.Standard == contracts.ERC721 && g.Erc721Token != nil:
					addr, tokenID, value, name, symbol = g.Erc721Token.Address, g.Erc721Token.TokenID, "1", g.Erc721Token.Name, g.Erc721Token.Symbol
				case w.Standard == contracts.ERC1155 && g.Erc1155Token != nil:
					addr, tokenID, value = g.Erc1155Token.Address, g.Erc1155Token.TokenID, g.Value
				default:
					t.Errorf("%s #%d: %+v is not an %s transfer", what, i, g, w.Standard)
					continue
				}
				wantID := ""
				if w.TokenID != nil {
					wantID = w.TokenID.String()
				}
				wantName, wantSymbol := "", ""
				switch w.Standard {
				case contracts.ERC20:
					wantName, wantSymbol = s.Token20.Name, s.Token20.Symbol
				case contracts.ERC721:
					wantName, wantSymbol = s.NFT721.Name, s.NFT721.Symbol
				}
				if g.TxHash != w.Tx.Hex() || g.BlockNumber != strconv.FormatUint(w.Block, 10) || g.BlockHash != hdr.Hash.Hex() ||
					g.BlockTimestamp != int64(hdr.Time) || g.From.Address != w.From.Hex() || g.To.Address != w.To.Hex() ||
					addr != w.Contract.Hex() || tokenID != wantID || value != w.Value.String() || name != wantName || symbol != wantSymbol {
					t.Errorf("%s #%d = tx %s block %s %s at %d, %s -> %s, token %s id %q value %q %q %q; the scenario's %s: tx %s block %d %s at %d, %s -> %s, token %s id %q value %q %q %q",
						what, i, g.TxHash, g.BlockNumber, g.BlockHash, g.BlockTimestamp, g.From.Address, g.To.Address, addr, tokenID, value, name, symbol,
						w.Step, w.Tx.Hex(), w.Block, hdr.Hash.Hex(), hdr.Time, w.From.Hex(), w.To.Hex(), w.Contract.Hex(), wantID, w.Value.String(), wantName, wantSymbol)
				}
			}
		}
		pagesOf := func(path string, field string) []listedTransfer {
			t.Helper()
			var out []listedTransfer
			q := url.Values{"pageSize": {"2"}}
			for range 100 {
				var p map[string]json.RawMessage
				getJSON(path, q, &p)
				var items []listedTransfer
				if err := json.Unmarshal(p[field], &items); err != nil {
					t.Fatal(err)
				}
				out = append(out, items...)
				var next string
				if raw, ok := p["nextPageToken"]; ok {
					_ = json.Unmarshal(raw, &next)
				}
				if next == "" {
					return out
				}
				q.Set("pageToken", next)
			}
			t.Fatalf("%s: more than 100 pages", path)
			return nil
		}
		for _, tok := range []common.Address{s.Token20.Address, s.NFT721.Address, s.Multi1155.Address} {
			check("the transfers of "+tok.Hex(), pagesOf(cbase+"/tokens/"+tok.Hex()+"/transfers", "transfers"),
				want(func(tr contracts.Transfer) bool { return tr.Contract == tok }))
		}
		for _, who := range []struct {
			name string
			addr common.Address
		}{{"Alice", s.Alice}, {"Bob", s.Bob}} {
			for _, std := range []string{contracts.ERC721, contracts.ERC1155} {
				op := map[string]string{contracts.ERC721: "listErc721", contracts.ERC1155: "listErc1155"}[std]
				check(who.name+"'s "+std+" transfers", pagesOf(cbase+"/addresses/"+who.addr.Hex()+"/transactions:"+op, "transactions"),
					want(func(tr contracts.Transfer) bool {
						return tr.Standard == std && (tr.From == who.addr || tr.To == who.addr)
					}))
			}
		}
		// The key's: its list holds other tests' transfers too; the
		// scenario's lead it, those of evmcode aside.
		for _, std := range []string{contracts.ERC721, contracts.ERC1155} {
			op := map[string]string{contracts.ERC721: "listErc721", contracts.ERC1155: "listErc1155"}[std]
			got := pagesOf(cbase+"/addresses/"+me.Hex()+"/transactions:"+op, "transactions")
			got = slices.DeleteFunc(got, func(g listedTransfer) bool {
				return (g.Erc721Token != nil && g.Erc721Token.Address == code.Emitter.Hex()) ||
					(g.Erc1155Token != nil && g.Erc1155Token.Address == code.Emitter.Hex())
			})
			w := want(func(tr contracts.Transfer) bool { return tr.Standard == std })
			if len(got) < len(w) {
				t.Errorf("the key's %s transfers: %d, the scenario made %d", std, len(got), len(w))
				continue
			}
			check("the key's "+std+" transfers", got[:len(w)], w)
		}

		// Native balances of every touched address at every block, as
		// the node has them; and at the head, without blockNumber.
		for _, a := range touched {
			for h := s.First - 1; h <= r.head; h++ {
				var b api.GetNativeBalanceResponse
				getJSON(cbase+"/addresses/"+a.Hex()+"/balances:getNative", url.Values{"blockNumber": {strconv.FormatUint(h, 10)}}, &b)
				if nb := b.NativeTokenBalance; nb.Balance != nodeBalance[a][h] || nb.ChainID != chainID || nb.Symbol != "AVAX" || nb.Decimals != 18 {
					t.Errorf("the balance of %s at block %d = %+v, the node's %s", a, h, nb, nodeBalance[a][h])
				}
			}
		}
		var latest api.GetNativeBalanceResponse
		getJSON(cbase+"/addresses/"+s.Alice.Hex()+"/balances:getNative", nil, &latest)
		if latest.NativeTokenBalance.Balance != nodeBalance[s.Alice][r.head] {
			t.Errorf("Alice's latest balance = %s, the node's %s", latest.NativeTokenBalance.Balance, nodeBalance[s.Alice][r.head])
		}
	})
}

func intOrNil(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
