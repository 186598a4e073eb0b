package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"

	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/contracts"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/openapitest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// TestEVML1Discovered runs avaindex, with no EVM chain configured, against
// the node of a real subnet-evm L1 (testnet.GetL1): it must find the L1's
// chain on the P-chain (a chain that appears while it runs: the store is
// empty at start), list it in /v1/chains with the P-chain's ids and name,
// and index it as it indexes the C-chain: every block as the node has it,
// an ERC-20's transfers, and the native balances of every address touched
// (a transfer, a native-minter mint, fees under a fee-manager change, the
// contracts' scenario) at every block, as eth_getBalance answers.
func TestEVML1Discovered(t *testing.T) {
	r := l1Scenarios(t)
	l, sc, nfts := r.l, r.sc, r.nfts
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	doc := openapitest.Default(t)
	me := l.Net.EthAddr
	alice, token, first, head, nodeBalance := sc.Alice, sc.Token, r.first, r.head, r.balances
	ec, err := l.EthClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	chainID := strconv.FormatUint(l.EVMChainID, 10)

	dbtest.Run(t, func(t *testing.T, dsn string) {
		base := startService(t, l.URL, dsn, "--genesis-file", l.GenesisFile, "--network-alias", "testnet")
		getJSON := apiGetter(t, base, doc)

		// Discovered once the P-chain's CreateChainTx is indexed (the API
		// answers 503 until avaindex knows the network).
		var list api.ListChainsResponse
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
			status, body, _ := get(t, base+"/v1/chains")
			if status == http.StatusOK {
				getJSON("/v1/chains", nil, &list)
				if slices.ContainsFunc(list.Chains, func(c api.EVMChainInfo) bool { return c.ChainID == chainID }) {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("GET /v1/chains lacks the L1's chain %s: %d %s", chainID, status, body)
			}
		}
		var c api.EVMChainInfo
		getJSON("/v1/chains/"+l.BlockchainID.String(), nil, &c)
		if c.ChainID != chainID || c.PlatformChainID != l.BlockchainID.String() || c.SubnetID != l.SubnetID.String() ||
			c.VMID != testnet.SubnetEVMID.String() || c.ChainName != testnet.L1ChainName || c.RPCURL != l.RPCURL() || c.VMName != "EVM" {
			t.Errorf("GET /v1/chains/%s = %+v", l.BlockchainID, c)
		}

		// A14: the CreateChainTx carries the chain's genesis, which
		// genesisData gives whole (it was written in the reference's field
		// shapes: numbers in config, hex strings at the top).
		var tx api.PChainTransaction
		getJSON("/v1/networks/testnet/blockchains/p-chain/transactions/"+l.BlockchainID.String(), nil, &tx)
		if tx.TxType != "CreateChainTx" || tx.BlockchainInfo == nil || tx.BlockchainInfo.ChainName != testnet.L1ChainName ||
			tx.BlockchainInfo.VMID != testnet.SubnetEVMID.String() || !sameJSONValue(t, tx.BlockchainInfo.GenesisData, l.Genesis) {
			t.Errorf("the L1's CreateChainTx = %+v, blockchainInfo %+v; want its genesis %s", tx, tx.BlockchainInfo, l.Genesis)
		}

		// The conversion: the L1's manager on its own chain, and the node
		// as its only validator.
		var conv api.PChainTransaction
		getJSON("/v1/networks/testnet/blockchains/p-chain/transactions/"+l.L1.ConvertSubnetToL1Tx.String(), nil, &conv)
		vdr := l.L1.Validators()[0]
		if conv.TxType != "ConvertSubnetToL1Tx" || conv.SubnetID != l.SubnetID.String() || conv.L1ValidatorManagerDetails == nil ||
			*conv.L1ValidatorManagerDetails != (api.L1ValidatorManagerDetails{BlockchainID: l.BlockchainID.String(), ContractAddress: testnet.L1ManagerAddress}) ||
			len(conv.L1ValidatorDetails) != 1 || conv.L1ValidatorDetails[0].NodeID != l.Node.String() ||
			conv.L1ValidatorDetails[0].ValidationID != vdr.ValidationID.String() || conv.L1ValidatorDetails[0].Weight != testnet.L1NodeWeight {
			t.Errorf("the L1's ConvertSubnetToL1Tx = %+v, manager %+v, validators %+v", conv, conv.L1ValidatorManagerDetails, conv.L1ValidatorDetails)
		}

		waitEVMIndexed(t, dsn, l.EVMChainID, head)
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		// Every block as eth_getBlockByNumber has it (its JSON: coreth's
		// header type would hash subnet-evm's header wrongly).
		today := time.Now().UTC().Truncate(24 * time.Hour).Unix()
		var todayTxs, todayGas float64
		for h := uint64(0); h <= head; h++ {
			var want struct {
				Hash, ParentHash   common.Hash
				GasUsed, Timestamp hexutil.Uint64
				BaseFeePerGas      *hexutil.Big
				Transactions       []json.RawMessage
			}
			if err := ec.Client().CallContext(ctx, &want, "eth_getBlockByNumber", hexutil.Uint64(h), false); err != nil {
				t.Fatal(err)
			}
			got, err := st.EVMBlock(ctx, l.EVMChainID, h)
			if err != nil {
				t.Fatalf("block %d: %v", h, err)
			}
			if got.Hash != want.Hash || got.ParentHash != want.ParentHash || got.GasUsed != uint64(want.GasUsed) ||
				uint64(got.Timestamp.Unix()) != uint64(want.Timestamp) || got.TxCount != len(want.Transactions) ||
				got.BaseFee == nil || want.BaseFeePerGas == nil || got.BaseFee.Cmp(want.BaseFeePerGas.ToInt()) != 0 {
				t.Errorf("block %d = %+v, the node's %+v", h, got, want)
			}
			if int64(want.Timestamp) >= today {
				todayTxs += float64(len(want.Transactions))
				todayGas += float64(want.GasUsed)
			}
		}

		// The Metrics API serves the L1 as it serves the C-chain: today's
		// tx_count and gas_used are its blocks' (rolled up after they are
		// indexed: wait for the count).
		mdoc := openapitest.Metrics(t)
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
			got := metricsGet(t, mdoc, base+"/v1/tx_count/"+chainID)
			if len(got.Results) > 0 && got.Results[0].Timestamp == today && got.Results[0].Value >= todayTxs {
				if got.Results[0].Value != todayTxs {
					t.Errorf("today's L1 tx_count %v, the node's blocks have %v", got.Results[0].Value, todayTxs)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("today's L1 tx_count %+v did not reach the node's %v", got.Results, todayTxs)
			}
		}
		if g := metricsGet(t, mdoc, base+"/v1/gas_used/"+chainID); len(g.Results) == 0 || g.Results[0].Value != todayGas {
			t.Errorf("today's L1 gas_used %+v, the node's blocks have %v", g.Results, todayGas)
		}
		var mchains struct {
			Chains []struct {
				EVMChainID   uint64 `json:"evmChainId"`
				BlockchainID string `json:"blockchainId"`
			} `json:"chains"`
		}
		status, body, _ := get(t, base+"/v2/chains")
		mdoc.ValidateResponse(t, "GET", "/v2/chains", status, body)
		if err := json.Unmarshal(body, &mchains); err != nil || !slices.ContainsFunc(mchains.Chains, func(c struct {
			EVMChainID   uint64 `json:"evmChainId"`
			BlockchainID string `json:"blockchainId"`
		}) bool {
			return c.EVMChainID == l.EVMChainID && c.BlockchainID == l.BlockchainID.String()
		}) {
			t.Errorf("/v2/chains lacks the L1: %d %s", status, body)
		}

		cbase := "/v1/chains/" + chainID
		var transfers struct {
			Transfers []listedTransfer `json:"transfers"`
		}
		getJSON(cbase+"/tokens/"+token.Hex()+"/transfers", nil, &transfers)
		type tr struct{ from, to, value string }
		var got []tr
		for _, x := range transfers.Transfers {
			got = append(got, tr{x.From.Address, x.To.Address, x.Value})
		}
		want := []tr{ // newest first
			{me.Hex(), alice.Hex(), strconv.FormatInt(sc.AliceTokens, 10)},
			{common.Address{}.Hex(), me.Hex(), strconv.FormatInt(sc.TokenSupply, 10)},
		}
		if !slices.Equal(got, want) {
			t.Errorf("the L1 token's transfers %+v, want %+v", got, want)
		}

		// The scenario's tokens: their metadata and every transfer.
		for _, tok := range []struct {
			c   contracts.Token
			typ string
		}{{nfts.Token20, "ERC-20"}, {nfts.NFT721, "ERC-721"}, {nfts.Multi1155, "ERC-1155"}} {
			var m api.ContractMetadata
			getJSON(cbase+"/addresses/"+tok.c.Address.Hex(), nil, &m)
			if m.ERCType != tok.typ || m.Name != tok.c.Name || m.Symbol != tok.c.Symbol || m.DeploymentDetails == nil ||
				m.DeploymentDetails.TxHash != tok.c.DeployTx.Hex() {
				t.Errorf("the L1 metadata of %s = %+v, want %s %q %q deployed by %s", tok.c.Address, m, tok.typ, tok.c.Name, tok.c.Symbol, tok.c.DeployTx)
			}
			var listed struct {
				Transfers []listedTransfer `json:"transfers"`
			}
			getJSON(cbase+"/tokens/"+tok.c.Address.Hex()+"/transfers", url.Values{"pageSize": {"100"}}, &listed)
			var want []string
			for _, tr := range nfts.Transfers {
				if tr.Contract == tok.c.Address {
					want = append(want, tr.Tx.Hex()+" "+tr.To.Hex())
				}
			}
			var got []string
			for _, x := range listed.Transfers {
				got = append(got, x.TxHash+" "+x.To.Address)
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("the L1 transfers of %s %s:\n got  %v\n want %v", tok.typ, tok.c.Address, got, want)
			}
		}

		for a, byHeight := range nodeBalance {
			for h := first - 1; h <= head; h++ {
				var b api.GetNativeBalanceResponse
				getJSON(cbase+"/addresses/"+a.Hex()+"/balances:getNative", url.Values{"blockNumber": {strconv.FormatUint(h, 10)}}, &b)
				if nb := b.NativeTokenBalance; nb.Balance != byHeight[h] || nb.ChainID != chainID || nb.Decimals != 18 {
					t.Errorf("the L1 balance of %s at block %d = %+v, the node's %s", a, h, nb, byHeight[h])
				}
			}
		}
	})
}

// sameJSONValue reports whether a and b are the same JSON value, whatever
// their keys' order and spacing.
func sameJSONValue(t *testing.T, a, b []byte) bool {
	t.Helper()
	decode := func(raw []byte) any {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Errorf("decoding %s: %v", raw, err)
		}
		return v
	}
	return reflect.DeepEqual(decode(a), decode(b))
}

// l1Run is what the L1 scenarios did (once per process): contracts.RunL1
// (a transfer, a native-minter mint, a fee-manager change, an ERC-20) and
// the test contracts' scenario (contracts.RunOn), with what the node says
// of the blocks and balances since they began.
type l1Run struct {
	l    *testnet.EVML1
	sc   *contracts.L1Scenario
	nfts *contracts.Scenario
	// first is RunL1's first block, head the last block of both.
	first, head uint64
	// blocks are the node's blocks first-1..head.
	blocks map[uint64]nodeEVMBlock
	// balances are the node's balances of every touched address at blocks
	// first-1..head.
	balances map[common.Address]map[uint64]string
}

var l1ScenariosOnce struct {
	once sync.Once
	run  l1Run
	err  error
}

// l1Scenarios runs the L1 scenarios on testnet.GetL1's L1 once per
// process and returns what they did.
func l1Scenarios(t *testing.T) *l1Run {
	t.Helper()
	l := testnet.GetL1(t)
	o := &l1ScenariosOnce
	o.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		r := &o.run
		r.l = l
		if r.sc, o.err = contracts.RunL1(ctx, l); o.err != nil {
			return
		}
		if r.nfts, o.err = contracts.RunOn(ctx, l.SendEVMTx, l.Net.EthAddr); o.err != nil {
			return
		}
		r.first, r.head = r.sc.First, r.nfts.Last
		o.err = r.readNode(ctx)
	})
	if o.err != nil {
		t.Fatalf("the L1 scenarios: %v", o.err)
	}
	return &o.run
}

// readNode reads the blocks and balances off the L1's node, and checks
// that the node shows what the scenarios did: Bob minted, the fee
// manager's minimum base fee in force from the block after its change.
func (r *l1Run) readNode(ctx context.Context) error {
	ec, err := r.l.EthClient(ctx)
	if err != nil {
		return err
	}
	defer ec.Close()
	if h, err := ec.HeaderByNumber(ctx, new(big.Int).SetUint64(r.sc.FeeChanged+1)); err != nil ||
		h.BaseFee.Cmp(big.NewInt(contracts.L1FeeConfig[2])) < 0 {
		return fmt.Errorf("the block after the fee change: %+v, %v; want a base fee of at least %d", h, err, contracts.L1FeeConfig[2])
	}
	if b, err := ec.BalanceAt(ctx, r.sc.Bob, nil); err != nil || b.Cmp(r.sc.Minted) != 0 {
		return fmt.Errorf("the native minter gave Bob %v (%v), want %s", b, err, r.sc.Minted)
	}
	r.blocks = map[uint64]nodeEVMBlock{}
	for h := r.first - 1; h <= r.head; h++ {
		var b struct {
			Hash          common.Hash    `json:"hash"`
			Timestamp     hexutil.Uint64 `json:"timestamp"`
			BaseFeePerGas *hexutil.Big   `json:"baseFeePerGas"`
		}
		if err := ec.Client().CallContext(ctx, &b, "eth_getBlockByNumber", hexutil.Uint64(h), false); err != nil {
			return err
		}
		r.blocks[h] = nodeEVMBlock{Hash: b.Hash, Time: uint64(b.Timestamp), BaseFee: b.BaseFeePerGas.ToInt()}
	}
	r.balances = map[common.Address]map[uint64]string{}
	me := r.l.Net.EthAddr
	for _, a := range append([]common.Address{me, r.sc.Alice, r.sc.Bob, r.sc.Token}, r.nfts.Touched()...) {
		r.balances[a] = map[uint64]string{}
		for h := r.first - 1; h <= r.head; h++ {
			v, err := ec.BalanceAt(ctx, a, new(big.Int).SetUint64(h))
			if err != nil {
				return err
			}
			r.balances[a][h] = v.String()
		}
	}
	return nil
}
