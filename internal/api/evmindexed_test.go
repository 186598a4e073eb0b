package api

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/evmchains"
	"github.com/avaindex/avaindex/internal/ingest"
	"github.com/avaindex/avaindex/internal/node"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/evmcode"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// TestEVMEndpointsOverIndexedChain serves the local network's C-chain as
// the indexer decoded it after the evmcode scenario, on both stores, and
// checks the endpoints against the scenario and the node.
func TestEVMEndpointsOverIndexedChain(t *testing.T) {
	captureLog(t)
	n := testnet.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	s, err := evmcode.Run(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	client := node.New(n.URL)
	network, err := client.Discover(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ec, err := n.EthClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	head, err := ec.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))

	dbtest.Run(t, func(t *testing.T, dsn string) {
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		reg, err := evmchains.New(ctx, evmchains.Options{Network: network, Node: client, PChain: st, Cursors: st, Settings: st, Log: quiet})
		if err != nil {
			t.Fatal(err)
		}
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = ingest.New(client, network, st, quiet, ingest.Options{PollInterval: 50 * time.Millisecond,
				EVMChains: reg.Chains(), Teleporter: s.Emitter}).Run(runCtx)
		}()
		for {
			h, ok, err := st.Cursor(ctx, store.EVMCursor(n.EVMChainID))
			if err != nil {
				t.Fatal(err)
			}
			if ok && h >= head {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("the C-chain was not indexed up to %d", head)
			case <-time.After(100 * time.Millisecond):
			}
		}
		stop()
		<-done
		reg.Refresh(ctx)

		a, err := New(Deps{Store: st, EVM: st, Chains: reg, Network: network, Aliases: []string{Testnet}, TokenKey: bytes.Repeat([]byte{7}, 32)})
		if err != nil {
			t.Fatal(err)
		}
		h := http.NewServeMux()
		for _, r := range a.Routes() {
			h.Handle(r.Pattern, r.Handler)
		}
		base := "/v1/chains/" + strconv.FormatUint(n.EVMChainID, 10)

		var c EVMChainInfo
		getOK(t, h, "/v1/chains/"+n.CChainID.String(), &c)
		if c.Status != "OK" || c.ChainID != "43112" {
			t.Errorf("the indexed C-chain: %+v", c)
		}

		// The Factory's CREATE2 child: its metadata and deployment tx.
		var child ContractMetadata
		getOK(t, h, base+"/addresses/"+s.Child.Hex(), &child)
		if d := child.DeploymentDetails; d == nil || d.TxHash != s.Txs["create2"].Hex() || d.DeployerAddress != n.EthAddr.Hex() ||
			d.DeployerContractAddress != s.Factory.Hex() || child.Address != s.Child.Hex() {
			t.Errorf("the child's metadata = %+v", child)
		}
		var d GetTransactionResponse
		getOK(t, h, base+"/contracts/"+s.Child.Hex()+"/transactions:getDeployment", &d)
		rcpt, err := ec.TransactionReceipt(ctx, s.Txs["create2"])
		if err != nil {
			t.Fatal(err)
		}
		hdr, err := ec.HeaderByNumber(ctx, rcpt.BlockNumber)
		if err != nil {
			t.Fatal(err)
		}
		nt := d.NativeTransaction
		if nt.TxHash != s.Txs["create2"].Hex() || nt.BlockNumber != rcpt.BlockNumber.String() || nt.BlockHash != rcpt.BlockHash.Hex() ||
			nt.GasUsed != strconv.FormatUint(rcpt.GasUsed, 10) || nt.TxStatus != "1" || nt.BaseFeePerGas != hdr.BaseFee.String() ||
			nt.From.Address != n.EthAddr.Hex() || nt.To.Address != s.Factory.Hex() || nt.Method == nil || nt.Method.CallType != "CONTRACT_CALL" {
			t.Errorf("the CREATE2 tx = %+v; receipt %+v", nt, rcpt)
		}
		if !slices.ContainsFunc(d.InternalTransactions, func(it InternalTransactionDetails) bool {
			return it.InternalTxType == "CREATE2" && it.From.Address == s.Factory.Hex() && it.To.Address == s.Child.Hex() && !it.IsReverted
		}) {
			t.Errorf("no CREATE2 frame from the factory to the child: %+v", d.InternalTransactions)
		}
		// A top-level deployment.
		getOK(t, h, base+"/contracts/"+s.Emitter.Hex()+"/transactions:getDeployment", &d)
		if m := d.NativeTransaction.Method; d.NativeTransaction.TxHash != s.Txs["deploy emitter"].Hex() || m == nil ||
			m.CallType != "CONTRACT_CREATION" || d.NativeTransaction.To.Address != s.Emitter.Hex() {
			t.Errorf("the Emitter's deployment = %+v", d.NativeTransaction)
		}

		// Deployments: the key's, every page; the factory's, its child.
		var deployed []string
		target := base + "/contracts/" + n.EthAddr.Hex() + "/deployments?pageSize=2"
		for range 20 {
			var p ListContractsResponse
			getOK(t, h, target, &p)
			for _, c := range p.Contracts {
				deployed = append(deployed, c.Address)
			}
			if p.NextPageToken == "" {
				break
			}
			target = base + "/contracts/" + n.EthAddr.Hex() + "/deployments?pageSize=2&pageToken=" + p.NextPageToken
		}
		for _, want := range []common.Address{s.Emitter, s.Forwarder, s.Factory, s.Child, s.Destructor, s.SelfDestructor} {
			if !slices.Contains(deployed, want.Hex()) {
				t.Errorf("the key's deployments %v lack %s", deployed, want.Hex())
			}
		}
		var fp ListContractsResponse
		getOK(t, h, base+"/contracts/"+s.Factory.Hex()+"/deployments", &fp)
		if len(fp.Contracts) != 1 || fp.Contracts[0].Address != s.Child.Hex() {
			t.Errorf("the factory's deployments = %+v", fp.Contracts)
		}

		// The recipient's NFT transfers, and the Emitter's transfers in
		// their standards' shapes.
		var p721 ListErc721TransactionsResponse
		getOK(t, h, base+"/addresses/"+s.Recipient.Hex()+"/transactions:listErc721", &p721)
		if len(p721.Transactions) != 1 || p721.Transactions[0].TxHash != s.Txs["erc721"].Hex() || p721.Transactions[0].Erc721Token.TokenID != "7" ||
			p721.Transactions[0].From.Address != n.EthAddr.Hex() || p721.Transactions[0].Erc721Token.Address != s.Emitter.Hex() {
			t.Errorf("the recipient's ERC-721 transfers = %+v", p721.Transactions)
		}
		var p1155 ListErc1155TransactionsResponse
		getOK(t, h, base+"/addresses/"+s.Recipient.Hex()+"/transactions:listErc1155", &p1155)
		var got []string
		for _, tr := range p1155.Transactions {
			got = append(got, tr.Erc1155Token.TokenID+":"+tr.Value)
		}
		if !slices.Equal(got, []string{"2:4", "1:3", "5:10"}) {
			t.Errorf("the recipient's ERC-1155 transfers (id:value, most recent first) = %v", got)
		}
		var all ListTransfersResponse
		body := getOK(t, h, base+"/tokens/"+s.Emitter.Hex()+"/transfers?pageSize=100", &all)
		if len(all.Transfers) != 6 || bytes.Count(body, []byte(`"erc20Token"`)) != 2 || bytes.Count(body, []byte(`"erc721Token"`)) != 1 ||
			bytes.Count(body, []byte(`"erc1155Token"`)) != 3 {
			t.Errorf("the Emitter's transfers: %s", body)
		}

		// The recipient's balance, indexed from the traces, is the node's.
		var b GetNativeBalanceResponse
		getOK(t, h, base+"/addresses/"+s.Recipient.Hex()+"/balances:getNative?blockNumber="+strconv.FormatUint(head, 10), &b)
		want, err := ec.BalanceAt(ctx, s.Recipient, new(big.Int).SetUint64(head))
		if err != nil {
			t.Fatal(err)
		}
		if b.NativeTokenBalance.Balance != want.String() {
			t.Errorf("the recipient's balance = %s, the node's %s", b.NativeTokenBalance.Balance, want)
		}
	})
}
