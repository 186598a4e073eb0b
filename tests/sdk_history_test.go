package tests

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/store"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// sdkHistoryFacts are what tests/sdk/history.test.mjs compares with: the
// txs issued for two addresses, and the node's own proposers.
type sdkHistoryFacts struct {
	Network string `json:"network"`
	History *struct {
		Recipient     string              `json:"recipient"`
		PBaseTx       string              `json:"pBaseTx"`
		PBaseTxBlock  string              `json:"pBaseTxBlock"`
		XBaseTx       string              `json:"xBaseTx"`
		FundedAddress string              `json:"fundedAddress"`
		Funded        map[string][]string `json:"funded"`
		PImports      []string            `json:"pImports"`
	} `json:"history,omitempty"`
	Proposers *struct {
		NodeID string `json:"nodeId"`
		Blocks map[string]struct {
			Top     uint64   `json:"top"`
			Heights []string `json:"heights"`
		} `json:"blocks"`
	} `json:"proposers,omitempty"`
}

func idStrings(in ...ids.ID) []string {
	out := []string{}
	for _, id := range in {
		out = append(out, id.String())
	}
	return out
}

// TestSDKHistory runs chainkit's primaryNetwork.transactions.listLatest
// against avaindex on the local network where every tx type was issued.
func TestSDKHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network and Node.js")
	}
	installSDK(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	n, issued := issuedNetwork(t)
	view := readNodeView(t, n)
	c := &txChecker{t: t, n: n}
	facts := sdkHistoryFacts{Network: "testnet"}
	facts.History = &struct {
		Recipient     string              `json:"recipient"`
		PBaseTx       string              `json:"pBaseTx"`
		PBaseTxBlock  string              `json:"pBaseTxBlock"`
		XBaseTx       string              `json:"xBaseTx"`
		FundedAddress string              `json:"fundedAddress"`
		Funded        map[string][]string `json:"funded"`
		PImports      []string            `json:"pImports"`
	}{
		Recipient: c.bech32(issued.Recipient), PBaseTx: issued.PBaseTx.String(), XBaseTx: issued.XBaseTx.String(),
		PBaseTxBlock:  strconv.FormatUint(view.pBlockOf[issued.PBaseTx].height, 10),
		FundedAddress: c.bech32(n.Addr),
		Funded: map[string][]string{
			"p-chain": idStrings(issued.PBaseTx, issued.CreateSubnetTx, issued.AddValidatorTx, issued.PExportToX, issued.PImportFromX),
			"x-chain": idStrings(issued.XBaseTx, issued.CreateAssetTx, issued.XImportFromP, issued.XExportToP),
			"c-chain": idStrings(issued.CExportToP, issued.CImportFromP),
		},
		PImports: idStrings(issued.PImportFromX, issued.PImportFromC),
	}
	dsn := dbtest.SQLite(t)
	base := startService(t, n.URL, dsn, "--network-alias", "testnet")
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	waitCursor(t, st, internal.PChain, view.pTip)
	waitCursor(t, st, internal.XChain, view.xTip)
	waitCursor(t, st, internal.CChain, view.cTip)
	runSDK(t, ctx, base, writeFacts(t, facts), "history.test.mjs")
}

// TestSDKBlocksByNode runs chainkit's primaryNetwork.blocks.listByNodeId
// against avaindex on the custom network, whose node signs its blocks,
// with the blocks the node's container index shows it proposed.
func TestSDKBlocksByNode(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the custom network and Node.js")
	}
	installSDK(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	n := testnet.GetCustom(t)
	signedBlocks(t, n)
	facts := sdkHistoryFacts{Network: "testnet"}
	facts.Proposers = &struct {
		NodeID string `json:"nodeId"`
		Blocks map[string]struct {
			Top     uint64   `json:"top"`
			Heights []string `json:"heights"`
		} `json:"blocks"`
	}{Blocks: map[string]struct {
		Top     uint64   `json:"top"`
		Heights []string `json:"heights"`
	}{}}
	lastIdx := map[string]uint64{}
	tops := map[string]uint64{}
	for _, ch := range []string{"P", "X"} {
		byNode, last, top := nodeProposals(t, n, ch)
		lastIdx[ch], tops[ch] = last, top
		var node ids.NodeID
		for id := range byNode {
			node = id // the custom network's one validator
		}
		if node == ids.EmptyNodeID || len(byNode) != 1 {
			t.Fatalf("the custom network's %s-chain blocks have %d proposers, want its one validator", ch, len(byNode))
		}
		facts.Proposers.NodeID = node.String()
		var hs []string
		for _, p := range byNode[node] {
			hs = append(hs, strconv.FormatUint(p.height, 10))
		}
		facts.Proposers.Blocks[map[string]string{"P": "p-chain", "X": "x-chain"}[ch]] = struct {
			Top     uint64   `json:"top"`
			Heights []string `json:"heights"`
		}{top, slices.Clip(hs)}
	}
	dsn := dbtest.SQLite(t)
	base := startService(t, n.URL, dsn, "--network-alias", "testnet")
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	waitProposers(t, st, lastIdx, tops)
	runSDK(t, ctx, base, writeFacts(t, facts), "history.test.mjs")
}
