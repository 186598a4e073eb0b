package tests

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaindex/avaindex/internal"
	"github.com/avaindex/avaindex/internal/pchain"
	"github.com/avaindex/avaindex/internal/testing/dbtest"
	"github.com/avaindex/avaindex/internal/testing/testnet"
)

// sdkFacts is what the SDK tests (tests/sdk) compare the SDK's answers
// with, read off the node: the source of truth.
type sdkFacts struct {
	Network string `json:"network"`
	PChain  struct {
		Height uint64      `json:"height"`
		Blocks []sdkPBlock `json:"blocks"`
	} `json:"pChain"`
	// UTXOs are the unspent UTXO lists of two keys of the UTXO-list tests
	// (issueUTXOExtras), which no other test touches.
	UTXOs sdkUTXOFacts `json:"utxos"`
	// Rewards are the rewards paid for the scenario's validator node.
	Rewards sdkRewardFacts `json:"rewards"`
	// Txs are transactions the test network issued, with the type the
	// Data API names them by.
	Txs []sdkTx `json:"txs"`
	// AssetID is the X-chain asset the test network created.
	AssetID string `json:"assetId"`
	// Stakers are the tx ids of the node's current primary-network
	// validators and delegators.
	Stakers []string `json:"stakers"`
	// EVM is what the EVM scenarios did on the C-chain (TestSDK) or an
	// L1 (TestSDKL1).
	EVM *sdkEVMFacts `json:"evm"`
	// L1 is what tests/sdk/l1.test.mjs checks: TestSDKL1's only.
	L1 *sdkL1Facts `json:"l1,omitempty"`
	// Prices are what the loopback price feed tells of the priced
	// endpoints' records.
	Prices sdkPriceFacts `json:"prices"`
	// Primary is what the Primary Network tag's operations answer.
	Primary sdkPrimaryFacts `json:"primary"`
}

// sdkPriceFacts are the priced token's deployment and the local key's
// balance at its block, and per currency the prices the feed tells of
// them and of the validator node's rewards (Rewards).
type sdkPriceFacts struct {
	ChainID     string                       `json:"chainId"`
	Address     string                       `json:"address"`
	BlockNumber string                       `json:"blockNumber"`
	Balance     string                       `json:"balance"`
	Token       string                       `json:"token"`
	TokenAmount string                       `json:"tokenAmount"`
	DeployTx    string                       `json:"deployTx"`
	Currencies  map[string]sdkCurrencyPrices `json:"currencies"`
}

type sdkCurrencyPrices struct {
	AVAX         float64 `json:"avax"`
	Token        float64 `json:"token"`
	BalanceValue float64 `json:"balanceValue"`
	// Deployed is AVAX's price on the deployment's day; Rewards AVAX's on
	// each reward's day, by UTXO id.
	Deployed float64            `json:"deployed"`
	Rewards  map[string]float64 `json:"rewards"`
}

type sdkTx struct {
	Chain string `json:"chain"` // "p-chain", "x-chain" or "c-chain"
	ID    string `json:"id"`
	Type  string `json:"type"`
}

type sdkUTXOFacts struct {
	// Address is k1's bare bech32 address, Pair k1's and k2's, comma-separated.
	Address string `json:"address"`
	Pair    string `json:"pair"`
	// Lists are, per chain alias, k1's unspent UTXOs by id; PairP is the
	// P-chain list of k1 and k2 together.
	Lists map[string]map[string]sdkUTXO `json:"lists"`
	PairP map[string]sdkUTXO            `json:"pairP"`
}

type sdkUTXO struct {
	Bytes            string `json:"bytes"` // 0x-prefixed hex
	Amount           string `json:"amount"`
	CreatedOnChainID string `json:"createdOnChainId"`
	ConsumedOnChain  string `json:"consumedOnChainId"`
}

type sdkRewardFacts struct {
	NodeID  string       `json:"nodeId"`
	Rewards []wantReward `json:"rewards"` // newest first
}

type sdkPBlock struct {
	Height    uint64   `json:"height"`
	ID        string   `json:"id"`
	ParentID  string   `json:"parentId"`
	Timestamp int64    `json:"timestamp"`
	TxIDs     []string `json:"txIds"`
}

// TestSDK runs the real @avalanche-sdk/chainkit client (tests/sdk, its
// version pinned by the committed lockfile and installed with npm ci)
// against avaindex serving a local network on which every transaction type
// was issued. The local network answers to "testnet", the SDK's network
// enum being closed.
func TestSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the local network and Node.js")
	}
	installSDK(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()

	n, issued := issuedNetwork(t)
	// The EVM scenarios first: their atomic txs add P-chain blocks.
	evmFacts := readSDKEVMFacts(t, n)
	pc := platformvm.NewClient(n.URL)
	tip, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var facts sdkFacts
	facts.Network = "testnet"
	facts.PChain.Height = tip
	for h := uint64(0); h <= tip; h++ {
		b, err := pc.GetBlockByHeight(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := pchain.Decode(h, b)
		if err != nil {
			t.Fatal(err)
		}
		fb := sdkPBlock{Height: h, ID: blk.ID.String(), ParentID: blk.ParentID.String(), TxIDs: []string{}}
		if !blk.Timestamp.IsZero() {
			fb.Timestamp = blk.Timestamp.Unix()
		}
		for _, tx := range blk.Txs {
			fb.TxIDs = append(fb.TxIDs, tx.ID.String())
		}
		facts.PChain.Blocks = append(facts.PChain.Blocks, fb)
	}
	for _, tx := range []struct {
		chain string
		id    ids.ID
		typ   string
	}{
		{"p-chain", issued.PBaseTx, "BaseTx"},
		{"p-chain", issued.CreateSubnetTx, "CreateSubnetTx"},
		{"p-chain", issued.CreateChainTx, "CreateChainTx"},
		{"p-chain", issued.ConvertSubnetToL1.TxID, "ConvertSubnetToL1Tx"},
		{"p-chain", issued.AddValidatorTx, "AddPermissionlessValidatorTx"},
		{"p-chain", issued.AddDelegatorTx, "AddPermissionlessDelegatorTx"},
		{"p-chain", issued.RewardValidatorTx, "RewardValidatorTx"},
		{"p-chain", issued.PExportToX, "ExportTx"},
		{"p-chain", issued.PImportFromX, "ImportTx"},
		{"x-chain", issued.XBaseTx, "BaseTx"},
		{"x-chain", issued.CreateAssetTx, "CreateAssetTx"},
		{"x-chain", issued.XImportFromP, "ImportTx"},
		{"x-chain", issued.XExportToP, "ExportTx"},
		{"c-chain", issued.CExportToP, "ExportTx"},
		{"c-chain", issued.CImportFromP, "ImportTx"},
	} {
		facts.Txs = append(facts.Txs, sdkTx{Chain: tx.chain, ID: tx.id.String(), Type: tx.typ})
	}
	facts.AssetID = issued.AssetID.String()
	validators, err := pc.GetCurrentValidators(ctx, constants.PrimaryNetworkID, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range validators {
		facts.Stakers = append(facts.Stakers, v.TxID.String())
		// The node lists delegators only when asked about one validator.
		one, err := pc.GetCurrentValidators(ctx, constants.PrimaryNetworkID, []ids.NodeID{v.NodeID})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range one {
			for _, d := range w.Delegators {
				facts.Stakers = append(facts.Stakers, d.TxID.String())
			}
		}
	}
	facts.UTXOs = readSDKUTXOFacts(t, n, issued)
	facts.Primary = readSDKPrimaryFacts(t, n, issued)
	rewards, _ := nodeRewards(t, n)
	facts.Rewards.NodeID = issued.Validator.NodeID.String()
	for _, r := range rewards {
		if r.NodeID == facts.Rewards.NodeID {
			facts.Rewards.Rewards = append(facts.Rewards.Rewards, r)
		}
	}
	sortRewards(facts.Rewards.Rewards, true)
	tok := deployPricedToken(t, n)
	ec, err := n.EthClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	balance, err := ec.BalanceAt(ctx, n.EthAddr, new(big.Int).SetUint64(tok.Block))
	if err != nil {
		t.Fatal(err)
	}
	facts.Prices = sdkPriceFacts{ChainID: strconv.FormatUint(n.EVMChainID, 10), Address: n.EthAddr.Hex(), BlockNumber: strconv.FormatUint(tok.Block, 10),
		Balance: balance.String(), Token: tok.Address.Hex(), TokenAmount: tokenMint.String(), DeployTx: tok.TxHash.Hex(),
		Currencies: map[string]sdkCurrencyPrices{}}
	for _, cur := range []string{"usd", "eur"} {
		p := sdkCurrencyPrices{AVAX: currentAVAX[cur], Token: currentToken[cur], BalanceValue: wholeValue(balance, currentAVAX[cur]),
			Deployed: dailyAVAX(tok.Time, cur), Rewards: map[string]float64{}}
		for _, r := range facts.Rewards.Rewards {
			p.Rewards[r.UtxoID] = dailyAVAX(time.Unix(int64(r.EndTimestamp), 0), cur)
		}
		facts.Prices.Currencies[cur] = p
	}
	facts.EVM = evmFacts
	factsFile := writeFacts(t, facts)

	dsn := dbtest.SQLite(t)
	feed := newPriceFeed(t)
	base := startService(t, n.URL, dsn, append([]string{"--network-alias", "testnet"}, priceFlags(feed, n, tok)...)...)
	waitIndexed(t, base, tip, time.Minute)
	waitAllIndexed(t, n, dsn)
	waitEVMIndexed(t, dsn, n.EVMChainID, tok.Block)
	_, evmRun := evmScenario(t)
	waitEVMIndexed(t, dsn, n.EVMChainID, evmRun.head)

	runSDK(t, ctx, base, factsFile)
}

// sdkInstall is tests/sdk's packages, installed once per test process.
var sdkInstall struct {
	once sync.Once
	out  []byte
	err  error
}

// installSDK installs tests/sdk's packages (@avalanche-sdk/chainkit) with
// npm ci from the committed lockfile, once per test process.
func installSDK(t *testing.T) {
	t.Helper()
	npm := lookTool(t, "npm")
	lookTool(t, "node")
	sdkInstall.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		install := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
		install.Dir = "sdk"
		sdkInstall.out, sdkInstall.err = install.CombinedOutput()
	})
	if sdkInstall.err != nil {
		t.Fatalf("npm ci in tests/sdk: %v\n%s", sdkInstall.err, sdkInstall.out)
	}
}

// runSDK runs node's test runner in tests/sdk on files (every *.test.mjs
// when none) against avaindex at base, with the facts the tests assert in
// factsFile, and fails t when a test fails.
func runSDK(t *testing.T, ctx context.Context, base, factsFile string, files ...string) {
	t.Helper()
	run := exec.CommandContext(ctx, lookTool(t, "node"), append([]string{"--test", "--test-reporter=spec"}, files...)...)
	run.Dir = "sdk"
	run.Env = append(os.Environ(), "AVAINDEX_URL="+base, "AVAINDEX_FACTS="+factsFile)
	out, err := run.CombinedOutput()
	t.Logf("node --test %s (tests/sdk):\n%s", strings.Join(files, " "), out)
	if err != nil {
		t.Fatalf("the SDK tests failed: %v", err)
	}
}

// writeFacts writes facts as the JSON file the SDK tests read
// (AVAINDEX_FACTS) and returns its path.
func writeFacts(t *testing.T, facts any) string {
	t.Helper()
	factsFile := filepath.Join(t.TempDir(), "facts.json")
	b, err := json.MarshalIndent(facts, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(factsFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return factsFile
}

// lookTool finds a command the test needs: missing, it skips the test
// locally and fails it under CI, where the machine must have it.
func lookTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not installed: %v", name, err)
	}
	t.Skipf("SKIP: %s is not installed (%v); CI fails here", name, err)
	return ""
}

// readSDKUTXOFacts reads off the node the UTXO lists of the UTXO-list
// tests' keys.
func readSDKUTXOFacts(t *testing.T, n *testnet.Network, issued *testnet.Issued) sdkUTXOFacts {
	t.Helper()
	k1, k2 := issueUTXOExtras(t, n, issued)
	nl := newNodeLists(t, n)
	conv := func(m map[ids.ID]wantUTXO) map[string]sdkUTXO {
		out := map[string]sdkUTXO{}
		for id, w := range m {
			made := internal.PChain
			switch w.created {
			case n.XChainID:
				made = internal.XChain
			case n.CChainID:
				made = internal.CChain
			}
			u, err := decodeUTXO(made, w.bytes)
			if err != nil {
				t.Fatal(err)
			}
			amount := uint64(0)
			if a, ok := u.Out.(avax.Amounter); ok {
				amount = a.Amount()
			}
			out[id.String()] = sdkUTXO{Bytes: "0x" + hex.EncodeToString(w.bytes), Amount: strconv.FormatUint(amount, 10),
				CreatedOnChainID: w.created.String(), ConsumedOnChain: w.consumed.String()}
		}
		return out
	}
	f := sdkUTXOFacts{Address: bech32Of(t, n, k1)[0], Pair: strings.Join(bech32Of(t, n, k1, k2), ","), Lists: map[string]map[string]sdkUTXO{}}
	for c, alias := range chainAliases {
		f.Lists[alias] = conv(nl.want(c, []ids.ShortID{k1}))
	}
	f.PairP = conv(nl.want(internal.PChain, []ids.ShortID{k1, k2}))
	return f
}
