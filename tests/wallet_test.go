package tests

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/avm"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/status"
	"github.com/ava-labs/libevm/common"

	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// TestWalletThroughAvaindexAlone: avalanchego's wallet and its P-, X- and
// C-chain clients, given avaindex's URL as their only URI, sync, build,
// sign and issue a P-chain transfer, an export to the X-chain and its
// import, a validator and a delegation to it, and a C-chain transfer with
// an EVM client; each is accepted and then found through avaindex's node
// API and Data API.
func TestWalletThroughAvaindexAlone(t *testing.T) {
	n := testnet.Get(t)
	dbtest.Run(t, func(t *testing.T, dsn string) {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		base := startService(t, n.URL, dsn, "--network-alias", "testnet", "--rate-limit-tier", "node:unlimited")
		waitIndexed(t, base, 0, 2*time.Minute) // the surfaces are up

		// The testnet helpers, attached to avaindex instead of the node:
		// every call they make (info, platform, avm, avax, eth) goes to
		// avaindex's URL.
		w, err := testnet.Attach(ctx, base)
		if err != nil {
			t.Fatalf("describing the network through avaindex: %v", err)
		}
		if w.XChainID != n.XChainID || w.CChainID != n.CChainID || w.AVAXAssetID != n.AVAXAssetID || w.EVMChainID != n.EVMChainID {
			t.Fatalf("avaindex names the network %+v, the node %+v", w, n)
		}

		recipient, err := testnet.NewKey()
		if err != nil {
			t.Fatal(err)
		}
		transfer, err := w.PBaseTx(ctx, recipient.Address(), units.Avax)
		if err != nil {
			t.Fatalf("P-chain transfer through avaindex: %v", err)
		}
		export, err := w.ExportP(ctx, n.XChainID, units.Avax)
		if err != nil {
			t.Fatalf("P-chain export through avaindex: %v", err)
		}
		imp, err := w.ImportX(ctx, constants.PlatformChainID)
		if err != nil {
			t.Fatalf("X-chain import through avaindex: %v", err)
		}
		vdr, err := w.AddValidator(ctx, 30*time.Second)
		if err != nil {
			t.Fatalf("validator through avaindex: %v", err)
		}
		del, err := w.AddDelegator(ctx, vdr.NodeID, vdr.End)
		if err != nil {
			t.Fatalf("delegation through avaindex: %v", err)
		}
		evmTo := common.BigToAddress(big.NewInt(time.Now().UnixNano()))
		evmTx, err := w.SendEVM(ctx, evmTo, big.NewInt(1_000_000_000))
		if err != nil {
			t.Fatalf("C-chain transfer through avaindex: %v", err)
		}

		// Each is accepted, as avaindex's node API tells it.
		pc := platformvm.NewClient(base)
		for name, id := range map[string]ids.ID{"transfer": transfer, "export": export, "validator": vdr.TxID, "delegation": del.TxID} {
			st, err := pc.GetTxStatus(ctx, id)
			if err != nil || st.Status != status.Committed {
				t.Errorf("platform.getTxStatus of the %s %s through avaindex: %v %v", name, id, st, err)
			}
			if _, err := pc.GetTx(ctx, id); err != nil {
				t.Errorf("platform.getTx of the %s %s through avaindex: %v", name, id, err)
			}
		}
		xc := avm.NewClient(base, "X")
		if st, err := xc.GetTxStatus(ctx, imp); err != nil || st.String() != "Accepted" {
			t.Errorf("avm.getTxStatus of the import %s through avaindex: %v %v", imp, st, err)
		}
		if _, err := xc.GetTx(ctx, imp); err != nil {
			t.Errorf("avm.getTx of the import %s through avaindex: %v", imp, err)
		}
		ec, err := w.EthClient(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer ec.Close()
		if r, err := ec.TransactionReceipt(ctx, evmTx); err != nil || r.Status != 1 {
			t.Errorf("eth_getTransactionReceipt of %s through avaindex: %v %v", evmTx, r, err)
		}
		if bal, err := ec.BalanceAt(ctx, evmTo, nil); err != nil || bal.Cmp(big.NewInt(1_000_000_000)) != 0 {
			t.Errorf("eth_getBalance of %s through avaindex: %v %v", evmTo, bal, err)
		}

		// And each is found in avaindex's Data API once indexed.
		chains := base + "/v1/networks/testnet/blockchains/"
		for _, id := range []ids.ID{transfer, export, vdr.TxID, del.TxID} {
			waitFound(ctx, t, chains+"p-chain/transactions/"+id.String(), `"txHash":"`+id.String()+`"`)
		}
		waitFound(ctx, t, chains+"x-chain/transactions/"+imp.String(), `"txHash":"`+imp.String()+`"`)
		// The C-chain transfer, as the recipient's indexed balance.
		waitFound(ctx, t, fmt.Sprintf("%s/v1/chains/%d/addresses/%s/balances:getNative", base, n.EVMChainID, evmTo.Hex()), `"balance":"1000000000"`)
	})
}

// waitFound waits until u answers 200 with a body that contains want.
func waitFound(ctx context.Context, t *testing.T, u, want string) {
	t.Helper()
	for {
		status, body, _ := get(t, u)
		if status == http.StatusOK && strings.Contains(string(body), want) {
			return
		}
		select {
		case <-ctx.Done():
			t.Errorf("GET %s: HTTP %d %s, want %s in it", u, status, clip(body), want)
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}
