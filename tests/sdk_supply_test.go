package tests

import (
	"context"
	"testing"
	"time"

	"github.com/avaindex/avaindex/internal/api"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
)

// TestSDKSupply runs chainkit's avaxSupply.get against avaindex on the
// local network where every tx type was issued, with the supply worked out
// from the node (supplyFromNode) once avaindex indexed every chain's tip.
func TestSDKSupply(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network and Node.js")
	}
	installSDK(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	n, issued := issuedNetwork(t)
	issueUTXOExtras(t, n, issued)
	dsn := dbtest.SQLite(t)
	base := startService(t, n.URL, dsn, "--network-alias", "testnet")
	waitAllIndexed(t, n, dsn)
	want := supplyFromNode(t, n)
	ec, err := n.EthClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tip, err := ec.BlockNumber(ctx)
	ec.Close()
	if err != nil {
		t.Fatal(err)
	}
	waitEVMIndexed(t, dsn, n.EVMChainID, tip)
	waitAllIndexed(t, n, dsn)
	facts := struct {
		Network string                 `json:"network"`
		Supply  api.AvaxSupplyResponse `json:"supply"`
	}{"testnet", want}
	runSDK(t, ctx, base, writeFacts(t, facts), "supply.test.mjs")
}
